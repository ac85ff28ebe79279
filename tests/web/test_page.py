#!/usr/bin/env python3
"""The browser edition, end to end, in headless Chromium (Debian's chromium + chromedriver,
driven through the WebDriver HTTP protocol with the standard library only).

Serves build-web/ from 127.0.0.1 and checks that:
  - the page loads (wasm, data, first scenario) within the budget, and its picker lists
    every scenario of the library with the title written in its file;
  - a scenario picked in the picker, run at the top speed to its end, draws a canvas that is
    not blank and shows counters equal to `idemsim run` with the same seed;
  - every curriculum scenario, opened by a link to a moment past its end (#...&t=), ends
    with the counters of `idemsim run` in every mode;
  - the run panel prints exactly the table `idemsim run` prints;
  - bad JSON in the editor is refused with the loader's $.path messages, as the CLI words
    them, and the running scenario stays;
  - an edited scenario travels in a link (#json=...): opened in a fresh page, it shows the
    edited text and ends with the counters `idemsim run` gives for that text;
  - the SVG the page offers is the one `idemsim run --svg` writes, byte for byte;
  - the desktop keys, typed on the canvas, drive the view (focus, pause, speed, seed), and
    p hands the page a screenshot of the picture to download;
  - #predict=1 stops at the question with the counters hidden in the footer too, Reveal
    shows them, Run on goes on; #projector=1 sets the preset and stays in the link;
  - a link the page cannot follow (an unknown scenario, a time that is not one, a key it
    does not know) opens with a banner saying what and why, never silently;
  - h shows the help; at 1366x768 with the editor open the picture keeps the page's width
    and the toolbar one line.
Every wait polls a DOM condition against a deadline. Exit status 0 when every check passed.
"""
import argparse
import base64
import functools
import http.server
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 7  # not the scenarios' own seeds, so the page's seed control is exercised
BACKGROUND = (0x0D, 0x11, 0x17)
OK_GREEN = (0x2E, 0xD3, 0xA0)
OUTCOMES = ("ok", "double", "lost", "phantom", "mismatch")


# ------------------------------------------------------------------ WebDriver


class WebDriver:
    """Chromium, started here, driven by chromedriver attached to it at 127.0.0.1.

    Letting chromedriver start Chromium fails on a minimal Debian root (a debootstrap
    chroot, issue 24): chromedriver reaches the browser's DevTools at "localhost", which
    such a root cannot resolve (it has no /etc/hosts), and session creation answers HTTP 500
    "unable to connect to renderer". D-Bus and systemd are not the cause (Chromium only logs
    that the bus is missing). Attaching to a browser whose DevTools listen on 127.0.0.1
    (goog:chromeOptions.debuggerAddress) needs no name at all. Both processes are ours:
    close() ends chromedriver and Chromium's whole process group, and removes its profile,
    also when the session could not be created."""

    def __init__(self, chromedriver, chromium, width, height):
        self.process = self.browser = self.log = None
        self.profile = tempfile.mkdtemp(prefix="idemsim-chromium-")
        try:
            self.log = open(os.path.join(self.profile, "chromium.log"), "wb")
            self.browser = subprocess.Popen(
                [chromium, "--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}",
                 # WebGL without a GPU: SwiftShader, as a laptop without drivers would.
                 "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                 "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
                 f"--user-data-dir={self.profile}", "--no-first-run", "about:blank"],
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                start_new_session=True)  # its own process group: close() ends every helper
            debugger = poll(self.devtools_address, 30, "Chromium's DevTools to listen")
            self.port = free_port()
            self.process = subprocess.Popen(
                [chromedriver, f"--port={self.port}"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            poll(lambda: self.ready(), 20, "chromedriver to start")
            capabilities = {"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"debuggerAddress": debugger},
                "goog:loggingPrefs": {"browser": "ALL"}}}}
            self.session = self.request("POST", "/session", capabilities)["sessionId"]
        except BaseException:
            self.print_browser_log()
            self.end_processes()
            raise

    def devtools_address(self):
        """127.0.0.1:PORT once Chromium has written the port it listens on; fails if it died."""
        if self.browser.poll() is not None:
            raise AssertionError(f"Chromium exited with status {self.browser.returncode}")
        try:
            with open(os.path.join(self.profile, "DevToolsActivePort")) as active:
                port = active.readline().strip()
        except OSError:
            return None
        return f"127.0.0.1:{port}" if port.isdigit() else None

    def print_browser_log(self):
        try:
            with open(os.path.join(self.profile, "chromium.log"), errors="replace") as log:
                tail = log.read()[-4000:]
        except OSError:
            return
        print("test_page: Chromium's standard error, last lines:\n" + tail, file=sys.stderr)

    def ready(self):
        try:
            return self.request("GET", "/status")["ready"]
        except OSError:
            return False

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())["value"]

    def command(self, method, path, body=None):
        return self.request(method, f"/session/{self.session}{path}", body)

    def open(self, url):
        self.command("POST", "/url", {"url": url})

    def run(self, script, *args):
        return self.command("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, expression, seconds, what):
        return poll(lambda: self.run(f"return {expression};"), seconds, what)

    def press(self, keys):
        """Types keys (one character each) into the focused element."""
        actions = []
        for key in keys:
            actions += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        self.command("POST", "/actions",
                     {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def screenshot(self):
        return base64.b64decode(self.command("GET", "/screenshot"))

    def close(self):
        try:
            self.command("DELETE", "")
        except OSError:
            pass  # the processes end below all the same
        finally:
            self.end_processes()

    def end_processes(self):
        """Ends chromedriver, then Chromium with every helper it started (its process
        group), waiting for each, and removes the profile."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.browser is not None:
            try:
                os.killpg(self.browser.pid, signal.SIGTERM)
                self.browser.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
            try:
                os.killpg(self.browser.pid, signal.SIGKILL)  # any helper still there
            except ProcessLookupError:
                pass
            self.browser.wait()
        if self.log is not None:
            self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def poll(condition, seconds, what):
    """Returns condition()'s first truthy value; fails after seconds."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(0.05)


# ------------------------------------------------------------------ the static server


def serve(site):
    handler = functools.partial(QuietHandler, directory=site)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".js": "text/javascript"}

    def log_message(self, *args):
        pass


# ------------------------------------------------------------------ pixels


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, color_type = header[:4]
    assert depth == 8 and color_type in (2, 6), f"PNG depth {depth} colour type {color_type}"
    channels = 3 if color_type == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up = previous[x]
            upper_left = previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                estimate = left + up - upper_left
                distances = (abs(estimate - left), abs(estimate - up), abs(estimate - upper_left))
                nearest = (left, up, upper_left)[distances.index(min(distances))]
                line[x] = (line[x] + nearest) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def check_canvas_drawn(driver, shot_path):
    shot = driver.screenshot()
    if shot_path:
        with open(shot_path, "wb") as out:
            out.write(shot)
    rect = driver.run("const r = document.getElementById('canvas').getBoundingClientRect();"
                      "return [r.left, r.top, r.width, r.height].map(Math.round);")
    scale = driver.run("return window.devicePixelRatio;")
    _, _, rows = png_pixels(shot)
    left, top, width, height = (round(v * scale) for v in rect)
    assert width >= 640 and height >= 360, f"canvas only {width}x{height}"
    pixels = [pixel for row in rows[top:top + height] for pixel in row[left:left + width]]
    colours = set(pixels)
    drawn = sum(1 for pixel in pixels if pixel != BACKGROUND)
    assert len(colours) > 50, f"canvas looks blank: {len(colours)} colours"
    assert drawn > len(pixels) // 20, f"canvas looks blank: {drawn} of {len(pixels)} drawn"
    assert OK_GREEN in colours, "no OK green (the counters) on the canvas"
    return len(colours)


# ------------------------------------------------------------------ the native program


def native_outcomes(idemsim, scenario, seed):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.json")
        subprocess.run([idemsim, "run", scenario, "--seed", str(seed), "--json", path, "-q"],
                       check=True, cwd=ROOT)
        with open(path) as report:
            modes = json.load(report)["modes"]
    return {mode: {name: values["outcomes"][name] for name in OUTCOMES}
            for mode, values in modes.items()}


def page_outcomes(state):
    return {mode["mode"]: {name: mode[name] for name in OUTCOMES} for mode in state["modes"]}


def page_state(driver):
    return json.loads(driver.run("return document.getElementById('counters').dataset.state;"))


# ------------------------------------------------------------------ the checks


def check_load_and_picker(driver, base, budget_s):
    """Loads the page three times without the browser's cache: the first load also pays for
    starting the browser's GPU and compiler processes, and the machine may be busy, so the
    fastest load is the page's own cost. The time is a figure this prints, not a verdict
    (a shared machine's load decides it), unless --load-budget-s asks for one."""
    driver.command("POST", "/goog/cdp/execute", {"cmd": "Network.enable", "params": {}})
    driver.command("POST", "/goog/cdp/execute",
                   {"cmd": "Network.setCacheDisabled", "params": {"cacheDisabled": True}})
    loads_ms = []
    for _ in range(3):
        driver.open("about:blank")
        driver.open(base + "#scenario=default")
        driver.wait("document.body.dataset.ready === 'true' || document.body.dataset.error",
                    60, "the page to start")
        error = driver.run("return document.body.dataset.error || '';")
        assert not error, f"the page failed to start: {error}"
        loads_ms.append(driver.run("return Number(document.body.dataset.readyMs);"))
    driver.command("POST", "/goog/cdp/execute",
                   {"cmd": "Network.setCacheDisabled", "params": {"cacheDisabled": False}})
    print("page load without cache, to a running scenario: " +
          ", ".join(f"{ms:.0f}" for ms in loads_ms) + " ms" +
          (f" (budget {budget_s} s)" if budget_s > 0 else ""))
    if budget_s > 0:
        assert min(loads_ms) < budget_s * 1000, f"the page took {min(loads_ms):.0f} ms to load"
    listed = driver.run("return [...document.getElementById('scenario').options]"
                        ".filter(o => o.value).map(o => [o.value, o.text]);")
    expected = []
    for name in sorted(os.listdir(os.path.join(ROOT, "scenarios"))):
        if name.endswith(".json"):
            with open(os.path.join(ROOT, "scenarios", name)) as source:
                expected.append([name, json.load(source)["title"]])
    assert listed == expected, f"picker lists {listed}, the library has {expected}"
    print(f"picker: {len(listed)} scenarios, titles from the files")
    return min(loads_ms)


def check_picked_scenario(driver, idemsim, scenario, shot_path):
    """Picks scenario in the picker, sets the seed, runs at the top speed to the end."""
    driver.run("const picker = document.getElementById('scenario');"
               "picker.value = arguments[0]; picker.dispatchEvent(new Event('change'));"
               "const seed = document.getElementById('seed');"
               "seed.value = arguments[1]; seed.dispatchEvent(new Event('change'));"
               "const speed = document.getElementById('speed');"
               "speed.value = '4096'; speed.dispatchEvent(new Event('change'));",
               scenario, str(SEED))
    driver.wait(f"JSON.parse(document.getElementById('counters').dataset.state).seed === "
                f"'{SEED}' && document.getElementById('counters').dataset.finished === 'true'",
                120, f"{scenario} to finish at top speed")
    state = page_state(driver)
    assert state["scenario"] == scenario.removesuffix(".json"), state["scenario"]
    expected = native_outcomes(idemsim, "scenarios/" + scenario, SEED)
    assert page_outcomes(state) == expected, f"page {page_outcomes(state)} != run {expected}"
    fragment = driver.run("return location.hash;")
    assert f"scenario={scenario.removesuffix('.json')}" in fragment and f"seed={SEED}" in \
        fragment and "speed=4096" in fragment, f"the link does not hold the state: {fragment}"
    colours = check_canvas_drawn(driver, shot_path)
    print(f"picked {scenario}: finished, counters equal `idemsim run --seed {SEED}`, "
          f"canvas drawn ({colours} colours), link {fragment}")


def check_every_scenario(driver, base, idemsim):
    names = sorted(n for n in os.listdir(os.path.join(ROOT, "scenarios")) if n.endswith(".json"))
    for name in names:
        stem = name.removesuffix(".json")
        # A fresh document each time: the hash alone would not reload the page.
        driver.open("about:blank")
        driver.open(f"{base}#scenario={stem}&seed={SEED}&t=1000000000000")
        driver.wait("document.body.dataset.ready === 'true'", 60, f"{name} to load")
        state = page_state(driver)
        assert state["scenario"] == stem and state["paused"], state
        assert state["finished"], f"{name}: not finished at the end of time"
        expected = native_outcomes(idemsim, "scenarios/" + name, SEED)
        assert page_outcomes(state) == expected, \
            f"{name}: page {page_outcomes(state)} != run {expected}"
    print(f"every scenario ({len(names)}): counters at the end equal `idemsim run`")


def check_run_table(driver, idemsim, scenario):
    """The table, then again after the seed changes (the table must follow it)."""
    driver.run("document.getElementById('toggle-run').click();")
    for seed in (str(SEED), str(SEED + 10)):
        driver.run("const field = document.getElementById('seed');"
                   "field.value = arguments[0]; field.dispatchEvent(new Event('change'));", seed)
        table = driver.wait(f"(t => t.includes('(seed {seed},') ? t : '')"
                            "(document.getElementById('run-table').textContent)", 60,
                            f"the run table of seed {seed}")
        native = subprocess.run([idemsim, "run", "scenarios/" + scenario, "--seed", seed,
                                 "--no-color"], check=True, cwd=ROOT, capture_output=True,
                                text=True).stdout
        assert table == native, f"run panel differs from `idemsim run`:\n{table}\n---\n{native}"
    driver.run("document.getElementById('toggle-run').click();")
    print(f"run panel: the table of `idemsim run {scenario} --seed N`, byte for byte, "
          f"following the seed field")


def check_bad_json(driver, idemsim):
    before = page_state(driver)["scenario"]
    bad = os.path.join(ROOT, "tests", "bad_scenarios", "account_required.json")
    with open(bad) as source:
        text = source.read()
    driver.run("document.getElementById('json').value = arguments[0];"
               "document.getElementById('apply').click();", text)
    shown = driver.wait("document.getElementById('errors').hidden ? '' : "
                        "document.getElementById('errors').textContent", 10, "the errors")
    native = subprocess.run([idemsim, "validate", bad], cwd=ROOT, capture_output=True,
                            text=True).stderr
    native_messages = [line.split(": ", 1)[1] for line in native.splitlines() if ": $" in line]
    shown_messages = [line.split(": ", 1)[1] for line in shown.splitlines()]
    assert native_messages and shown_messages == native_messages, \
        f"page says {shown_messages}, idemsim validate {native_messages}"
    assert page_state(driver)["scenario"] == before, "a bad scenario replaced the good one"
    print(f"editor: bad JSON refused with {shown_messages}")


def check_edited_link(driver, base, idemsim):
    driver.run("document.getElementById('revert').click();")
    edited = driver.run(
        "const scenario = JSON.parse(document.getElementById('json').value);"
        "scenario.name = 'edited_in_the_page'; scenario.clients[0].count += 4;"
        "const text = JSON.stringify(scenario, null, 2);"
        "document.getElementById('json').value = text;"
        "document.getElementById('apply').click(); return text;")
    link = driver.wait("location.hash.startsWith('#json=') && location.hash", 10,
                       "the link to hold the edited scenario")
    seed = page_state(driver)["seed"]
    driver.open("about:blank")
    driver.open(base + link + "&t=1000000000000")
    driver.wait("document.body.dataset.ready === 'true'", 60, "the edited link to load")
    state = page_state(driver)
    assert state["scenario"] == "edited_in_the_page" and state["seed"] == seed, state
    assert driver.run("return document.getElementById('json').value;") == edited
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "edited.json")
        with open(path, "w") as out:
            out.write(edited)
        expected = native_outcomes(idemsim, path, seed)
    assert state["finished"] and page_outcomes(state) == expected, \
        f"edited link: page {page_outcomes(state)} != run {expected}"
    print(f"edited scenario: a {len(link)}-character link reopens it; counters equal `idemsim run`")


def check_svg(driver, idemsim, scenario):
    state = page_state(driver)
    svg = driver.run("return Module.ccall('web_svg', 'string', [], []);")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "diagram.svg")
        subprocess.run([idemsim, "run", "scenarios/" + scenario, "--seed", state["seed"],
                        "--svg", path, "-q"], check=True, cwd=ROOT)
        with open(path) as native:
            expected = native.read()
    assert svg.startswith("<svg") or svg.startswith("<?xml"), svg[:80]
    assert svg == expected, "the page's SVG differs from `idemsim run --svg`"
    print(f"SVG: the diagram of `idemsim run --svg`, byte for byte ({len(svg)} bytes)")


def check_keys(driver):
    driver.run("document.getElementById('canvas').focus();"
               # Record the screenshot key p hands over instead of downloading it.
               "Module.offerPng = (rgba, width, height, name) => { window.offeredPng = "
               "{width, height, name, drawn: rgba.some((v, i) => i % 4 !== 3 && v > 40)}; };")
    before = page_state(driver)
    pressed = [("2", lambda s: s["focus"] == 1, "key 2 shows the second mode alone"),
               (" ", lambda s: s["paused"] != before["paused"], "space pauses or resumes"),
               ("-", lambda s: s["speed"] == before["speed"] / 2, "- halves the speed"),
               ("s", lambda s: int(s["seed"]) == int(before["seed"]) + 1, "s takes the next seed"),
               ("0", lambda s: s["focus"] == -1, "0 shows every mode")]
    for key, holds, what in pressed:
        driver.press(key)
        poll(lambda: holds(page_state(driver)), 10, what)
    driver.press("p")
    png = driver.wait("window.offeredPng", 10, "key p to offer a screenshot")
    size = driver.run("const c = document.getElementById('canvas'); return [c.width, c.height];")
    assert [png["width"], png["height"]] == size and png["drawn"], png
    assert png["name"].startswith("idemsim-") and png["name"].endswith(".png"), png["name"]
    # f at once, not at the next key or click (the view's own request came too late for it)
    driver.press("f")
    driver.wait("document.fullscreenElement && document.fullscreenElement.id === 'stage'", 5,
                "f to show the picture full screen")
    driver.press("f")
    driver.wait("!document.fullscreenElement", 5, "f again to leave full screen")
    print("keys on the canvas: " + ", ".join(what for _, _, what in pressed) +
          f"; p offers {png['name']} ({png['width']}x{png['height']}); f enters and leaves "
          "full screen")


def open_link(driver, base, fragment):
    driver.open("about:blank")
    driver.open(base + fragment)
    driver.wait("document.body.dataset.ready === 'true'", 60, f"{fragment} to load")
    return page_state(driver)


def check_predict(driver, base, idemsim):
    """C1 at its question: clock held there, the question's counters hidden in the footer as
    on the canvas; Reveal shows them; Run on runs to the end with the run's counters."""
    scenario = "01_lost_answer"
    with open(os.path.join(ROOT, "scenarios", scenario + ".json")) as source:
        question = json.load(source)["questions"][0]
    state = open_link(driver, base, f"#scenario={scenario}&predict=1&speed=64")
    assert state["predict"] and state["questions"] == 1, state
    state = poll(lambda: (lambda s: s if s["question"]["phase"] == "asking" else None)(
        page_state(driver)), 60, "the question to be asked")
    assert state["now_ms"] == round(question["at_ms"]), state["now_ms"]
    hidden = state["question"]["hidden"]
    assert hidden, "the question hides nothing"
    footer = driver.run("return document.getElementById('counters').textContent;")
    for mode in state["modes"]:
        for name in hidden:
            if name in OUTCOMES:
                shown = "double" if name == "double" else name
                assert f"{shown} ?" in footer, f"the footer shows {name}: {footer}"
    assert "question 1 of 1" in footer, footer
    press = driver.run("const b = document.getElementById('quiz-press');"
                       "return b.hidden ? '' : b.textContent;")
    assert press == "Reveal", f"the Reveal button reads {press!r}"
    held = page_state(driver)["now_ms"]
    for _ in range(10):  # several of the page's animation frames: the clock stays held
        assert page_state(driver)["now_ms"] == held, "the clock moved during the vote"
    driver.run("document.getElementById('quiz-press').click();")
    state = poll(lambda: (lambda s: s if s["question"]["phase"] == "revealed" else None)(
        page_state(driver)), 10, "the reveal")
    footer = driver.run("return document.getElementById('counters').textContent;")
    assert state["question"]["hidden"] == [] and " ?" not in footer.split("—", 1)[1], footer
    assert state["now_ms"] == held, "the reveal moved the clock"
    driver.run("document.getElementById('quiz-press').click();")
    driver.wait("document.getElementById('counters').dataset.finished === 'true'", 120,
                "the run to go on to its end after the reveal")
    state = page_state(driver)
    assert state["question"]["phase"] == "over", state["question"]
    expected = native_outcomes(idemsim, f"scenarios/{scenario}.json", int(state["seed"]))
    assert page_outcomes(state) == expected, f"page {page_outcomes(state)} != run {expected}"
    assert "predict=1" in driver.run("return location.hash;")
    print(f"predict: {scenario} held at {held} ms, footer hid {hidden}, Reveal showed them, "
          "Run on reached the run's counters")


def check_projector_and_help(driver, base):
    state = open_link(driver, base, "#scenario=01_lost_answer&projector=1")
    assert state["projector"], state
    assert driver.run("return document.getElementById('projector')"
                      ".getAttribute('aria-pressed');") == "true"
    poll(lambda: "projector=1" in driver.run("return location.hash;"), 5,
         "the link to keep projector=1")
    driver.run("document.getElementById('projector').click();")
    poll(lambda: not page_state(driver)["projector"], 5, "the Projector button to switch off")
    driver.run("document.getElementById('canvas').focus();")
    driver.press("h")
    poll(lambda: page_state(driver)["help"], 10, "h to show the help")
    driver.press("\ue00c")  # Esc closes the help and nothing else
    poll(lambda: not page_state(driver)["help"], 10, "Esc to close the help")
    assert driver.run("return document.body.dataset.ready;") == "true"
    print("projector=1: the preset on, kept in the link, its button switches it; "
          "h shows the help, Esc closes it")


def drawn(driver):
    """What the last frame drew (web_drawn): the items a click picks and every string."""
    return json.loads(driver.run("return Module.ccall('web_drawn', 'string', [], []);"))


def click_canvas(driver, x, y):
    """Moves the mouse to (x, y) of the canvas's own pixels and clicks there at once, as a
    tap would: no frame is drawn with the mouse there before the press."""
    left, top, scale_x, scale_y = driver.run(
        "const c = document.getElementById('canvas'), r = c.getBoundingClientRect();"
        "return [r.left, r.top, r.width / c.width, r.height / c.height];")
    mouse = [{"type": "pointerMove", "origin": "viewport", "x": round(left + x * scale_x),
              "y": round(top + y * scale_y)},
             {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]
    driver.command("POST", "/actions", {"actions": [
        {"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
         "actions": mouse}]})


def tap_canvas(driver, x, y):
    """A tap at (x, y) of the canvas's pixels: the browser's move, press and release of a
    touch, dispatched in one task, so the view sees them in the same frame."""
    driver.run(
        "const c = document.getElementById('canvas'), r = c.getBoundingClientRect();"
        "const at = {bubbles: true, cancelable: true, view: window, button: 0,"
        " clientX: r.left + arguments[0] * r.width / c.width,"
        " clientY: r.top + arguments[1] * r.height / c.height};"
        "for (const kind of ['mousemove', 'mousedown', 'mouseup'])"
        "  c.dispatchEvent(new MouseEvent(kind, {...at, buttons: kind === 'mousedown' ? 1 : 0}));",
        x, y)


def segment_distance(x, y, item):
    dx, dy = item["x2"] - item["x1"], item["y2"] - item["y1"]
    length2 = dx * dx + dy * dy
    t = ((x - item["x1"]) * dx + (y - item["y1"]) * dy) / length2 if length2 else 0
    t = min(max(t, 0), 1)
    return ((item["x1"] + t * dx - x) ** 2 + (item["y1"] + t * dy - y) ** 2) ** 0.5


def story_lines(texts):
    """The clicked story's panel, its title and its lines in drawing order; None when none is
    drawn (a finished column's own story, drawn in place of its diagram, has no "AS OF")."""
    for index, text in enumerate(texts):
        if re.match(r"THE STORY OF OPERATION \d+ IN .*, AS OF ", text["text"]):
            lines = []
            for line in texts[index + 1:]:  # explain's heading, steps, outcome, what caught it
                words = line["text"]
                if not (words[:1].isdigit() or words.startswith(("outcome:", "caught:")) or
                        re.fullmatch(r"[a-z-]+: operation \d+", words)):
                    break
                lines.append(words)
            return text["text"], lines
    return None


def explained_steps(idemsim, scenario, mode, seed, operation, until_s):
    """`idemsim explain --op`'s timestamped steps of operation in mode up to until_s."""
    told = subprocess.run([idemsim, "explain", f"scenarios/{scenario}.json", "--op",
                           str(operation), "--mode", mode, "--seed", str(seed)],
                          check=True, cwd=ROOT, capture_output=True, text=True).stdout
    steps = [line.strip() for line in told.splitlines() if line.startswith("    ")]
    return [step for step in steps if float(step.split(" s ", 1)[0]) <= until_s]


def check_story(driver, base, idemsim):
    """A click on a message opens its operation's story over the picture, as `idemsim
    explain --op N` tells it up to the clock; a click on nothing closes it, and so does Esc
    (after the help, which lists only the page's keys)."""
    scenario, at_ms = "01_lost_answer", 1250  # the retries in flight, no column finished
    state = open_link(driver, base, f"#scenario={scenario}&t={at_ms}")
    driver.run("document.getElementById('canvas').focus();")
    items = poll(lambda: drawn(driver)["items"], 10, "the diagram's messages to be drawn")
    # A spot on a message as far as can be from every other operation's messages and marks:
    # the view picks the nearest within reach, so that message is the one clicked.
    def clearance(item, t):
        x = item["x1"] + t * (item["x2"] - item["x1"])
        y = item["y1"] + t * (item["y2"] - item["y1"])
        return min((segment_distance(x, y, other) for other in items
                    if other["operation"] != item["operation"]), default=1e9), x, y
    spots = [(clearance(item, t / 50), item) for item in items
             if (item["x1"], item["y1"]) != (item["x2"], item["y2"]) for t in range(1, 50)]
    # the at-least-once column's when it has a clear one: its story has a retry
    (room, x, y), item = max(spots, key=lambda spot: (spot[0][0] >= 8 and spot[1]["pane"] == 1,
                                                      spot[0][0]))
    assert room >= 8, f"no message drawn 8 px clear of the others to click: {items}"
    mode = state["modes"][item["pane"]]["mode"]
    assert not story_lines(drawn(driver)["texts"]), "a story is open before any click"
    click_canvas(driver, x, y)
    title, lines = poll(lambda: story_lines(drawn(driver)["texts"]), 10,
                        f"the story of operation {item['operation']} after a click on "
                        f"({x:.0f}, {y:.0f})")
    heading = f"THE STORY OF OPERATION {item['operation']} IN {mode}, AS OF {at_ms / 1000:.2f} s"
    assert title.startswith(heading), f"the panel reads {title!r}, not {heading!r}"
    expected = explained_steps(idemsim, scenario, mode, state["seed"], item["operation"],
                               at_ms / 1000)
    assert lines and lines[0] == f"{mode}: operation {item['operation']}", lines
    shown = [line for line in lines if line[:1].isdigit()]
    assert expected and len(shown) == len(expected), \
        f"the panel shows steps {shown}, explain {expected}"
    for shown_step, step in zip(shown, expected):  # a line too wide ends in an ellipsis
        assert shown_step == step or (shown_step.endswith("\u2026") and
                                      step.startswith(shown_step[:-1])), (shown_step, step)
    assert any(line.startswith("outcome:") for line in lines), f"no outcome line: {lines}"
    width = driver.run("return document.getElementById('canvas').width;")
    click_canvas(driver, width / 2, 4)  # the title bar: no message there
    poll(lambda: not story_lines(drawn(driver)["texts"]), 10, "a click on nothing to close it")
    tap_canvas(driver, x, y)  # a touch screen's tap: no frame hovers the spot before it
    poll(lambda: story_lines(drawn(driver)["texts"]), 10, "a tap to open the story again")
    driver.press("h")
    help_texts = poll(lambda: (lambda t: t if any(w["text"] == "Controls" for w in t) else None)(
        drawn(driver)["texts"]), 10, "h to show the help")
    words = [text["text"] for text in help_texts]
    assert "close this help or the story" in words, words
    assert "quit" not in words and "q" not in words, f"the help offers to quit: {words}"
    driver.press("\ue00c")  # Esc: the help first
    poll(lambda: not page_state(driver)["help"], 10, "Esc to close the help")
    assert story_lines(drawn(driver)["texts"]), "Esc closed the story with the help"
    driver.press("\ue00c")  # then the story
    poll(lambda: not story_lines(drawn(driver)["texts"]), 10, "Esc to close the story")
    assert driver.run("return document.body.dataset.ready;") == "true"
    print(f"story: a click on operation {item['operation']}'s message in {mode} opened its "
          f"story ({len(shown)} steps, explain's up to {at_ms / 1000:g} s); a click on nothing "
          "closed it, a tap opened it again; the help lists Esc and no quit; Esc closed the help, "
          "then the story")


def check_bad_links(driver, base):
    cases = [("#scenario=nope", ["no scenario \"nope\"", "showing default"], "default"),
             ("#scenario=01_lost_answer&t=soon", ["t=soon", "not a time"], "01_lost_answer"),
             ("#scenario=01_lost_answer&sed=4", ["\"sed\" is not something a link can set"],
              "01_lost_answer"),
             ("#scenario=01_lost_answer&focus=7", ["focus=7"], "01_lost_answer")]
    for fragment, words, shown in cases:
        state = open_link(driver, base, fragment)
        banner = driver.run("const b = document.getElementById('banner');"
                            "return b.hidden ? '' : b.textContent;")
        for word in words:
            assert word in banner, f"{fragment}: the banner says {banner!r}"
        assert state["scenario"] == shown, f"{fragment}: shows {state['scenario']}"
    state = open_link(driver, base, "#scenario=01_lost_answer&t=2000")
    assert driver.run("return document.getElementById('banner').hidden;"), \
        "a good link shows a banner"
    assert state["now_ms"] == 2000 and state["paused"], state
    print(f"bad links: {len(cases)} each named in a banner; a good one opens without it")


def check_small_screen(driver, base):
    """A 1366x768 laptop with the editor open: the picture keeps the page's width (the panel
    lies over it) and the toolbar stays one line; so does it at 1536 and 1440 wide, where the
    full toolbar once took two lines."""
    for width in (1536, 1440):
        driver.command("POST", "/window/rect", {"width": width, "height": 864})
        open_link(driver, base, "#scenario=01_lost_answer&predict=1")
        lines = driver.run(
            "const box = (element) => element.getBoundingClientRect();"
            "return {toolbar: box(document.getElementById('toolbar')).height,"
            " footer: box(document.querySelector('footer')).height};")
        assert lines["toolbar"] <= 44 and lines["footer"] <= 32, f"{width} px wide: {lines}"
    driver.command("POST", "/window/rect", {"width": 1366, "height": 768})
    open_link(driver, base, "#scenario=01_lost_answer&predict=1")
    driver.run("document.getElementById('toggle-json').click();")
    poll(lambda: not driver.run("return document.getElementById('json-panel').hidden;"), 5,
         "the editor to open")
    driver.wait("JSON.parse(document.getElementById('counters').dataset.state)"
                ".question.phase === 'asking'", 60, "the question (Reveal shown)")
    sizes = driver.run(
        "const box = (id) => document.getElementById(id).getBoundingClientRect();"
        "return {page: document.documentElement.clientWidth, canvas: box('canvas').width,"
        " canvasHeight: box('canvas').height, toolbar: box('toolbar').height,"
        " editor: box('json').width, pageHeight: document.documentElement.clientHeight,"
        " footer: document.querySelector('footer').getBoundingClientRect().height};")
    assert sizes["canvas"] >= sizes["page"] - 2, f"the editor squeezes the picture: {sizes}"
    assert sizes["toolbar"] <= 44, f"the toolbar wraps: {sizes}"
    assert sizes["editor"] >= 400, f"the editor is too narrow: {sizes}"
    assert sizes["footer"] <= 32, f"the footer wraps: {sizes}"
    assert sizes["canvasHeight"] >= sizes["pageHeight"] - 80, f"the picture lost height: {sizes}"
    # The question card, and the help over it, are drawn left of the editor, whole.
    panel_left = driver.run(
        "const c = document.getElementById('canvas'), r = c.getBoundingClientRect();"
        "return (document.getElementById('json-panel').getBoundingClientRect().left - r.left)"
        " * c.width / r.width;")
    def overlay_texts(first):
        texts = drawn(driver)["texts"]
        starts = [i for i, text in enumerate(texts) if text["text"].startswith(first)]
        return texts[starts[-1]:] if starts else None
    card = poll(lambda: (lambda t: t if t and all(w["x"] + w["w"] <= panel_left for w in t)
                         else None)(overlay_texts("PREDICT: QUESTION")), 5,
                f"the question card left of the editor (x < {panel_left:.0f})")
    driver.run("document.getElementById('canvas').focus();")
    driver.press("h")
    poll(lambda: (lambda t: t and all(w["x"] + w["w"] <= panel_left for w in t))(
        overlay_texts("Controls")), 5, f"the help left of the editor (x < {panel_left:.0f})")
    driver.press("\ue00c")
    print(f"1366x768 with the editor open: picture {sizes['canvas']:.0f}x"
          f"{sizes['canvasHeight']:.0f}, toolbar {sizes['toolbar']:.0f} px, editor "
          f"{sizes['editor']:.0f} px wide; the question card ({len(card)} strings) and the help "
          f"drawn left of it; at 1536 and 1440 wide the toolbar and the footer one line each")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default=os.path.join(ROOT, "build-web"))
    parser.add_argument("--idemsim", default=os.path.join(ROOT, "build", "idemsim"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    parser.add_argument("--scenario", default="01_lost_answer.json",
                        help="the scenario picked in the picker")
    parser.add_argument("--screenshot", default="", help="save the checked screenshot here")
    # 0: print the load times only (a timed assertion fails on a busy machine, not a slow page)
    parser.add_argument("--load-budget-s", type=float, default=0.0)
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=900)
    options = parser.parse_args()
    idemsim = os.path.abspath(options.idemsim)
    for needed in (os.path.join(options.site, "index.html"), idemsim):
        if not os.path.exists(needed):
            sys.exit(f"test_page: {needed} is missing (run scripts/web and build the CLI)")
    started = time.monotonic()
    server = serve(options.site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    driver = WebDriver(options.chromedriver, options.chromium, options.width, options.height)
    try:
        check_load_and_picker(driver, base, options.load_budget_s)
        check_picked_scenario(driver, idemsim, options.scenario, options.screenshot)
        check_run_table(driver, idemsim, options.scenario)
        check_bad_json(driver, idemsim)
        check_svg(driver, idemsim, options.scenario)
        check_keys(driver)
        check_edited_link(driver, base, idemsim)
        check_predict(driver, base, idemsim)
        check_projector_and_help(driver, base)
        check_story(driver, base, idemsim)
        check_bad_links(driver, base)
        check_small_screen(driver, base)
        check_every_scenario(driver, base, idemsim)
    finally:
        driver.close()
        server.shutdown()
    print(f"web page: every check passed in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
