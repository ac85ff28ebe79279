// The page around the C view (src/web/web_main.c): the controls call its entry points, and
// a poll of web_state() keeps the controls, the counters below the picture and the URL
// fragment in step with what the view does (its keys change the same state). Nothing here
// draws the simulation: the canvas is SDL's.
//
// The fragment holds the page's state, so a link opens the same run:
//   #scenario=01_lost_answer&seed=42&speed=0.5&focus=2&t=8000
//   #json=<the edited scenario, deflated, base64url>&seed=...   (an edited scenario)
// t (simulated ms) is added by "Link to this moment": the page runs to t and pauses there.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SPEEDS = [];
  for (let exponent = -6; exponent <= 12; exponent++) SPEEDS.push(2 ** exponent);
  const POLL_MS = 200;

  let library = [];           // [{file, name, title}] from the files themselves
  let file = null;            // the library file shown, or null for edited JSON
  let editedText = null;      // the applied edited JSON, or null
  let editedFragment = null;  // its encoding for the link
  let state = {};             // the last web_state()
  let shownFragment = "";
  let atMoment = false;       // the link names the paused moment (t) until the view runs on
  let tableOf = "";           // what the run table shows (tableKey)

  const Module = (window.Module = {
    canvas: $("canvas"),
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
    onRuntimeInitialized: () => start().catch(showFatal),
    offerPng: offerPng,
  });

  const call = (name, returns, types, args) => Module.ccall(name, returns, types, args || []);

  // Browsers refuse to load WebAssembly from file://: say what to do instead of hanging.
  if (location.protocol === "file:") {
    $("loading").textContent = "This page must be served over HTTP, for instance: " +
      "python3 -m http.server --directory build-web 8000, then open http://127.0.0.1:8000/";
  }

  function showFatal(error) {
    $("loading").textContent = "The simulator could not start: " + error;
    document.body.dataset.error = String(error);
  }

  // ------------------------------------------------------------------ the fragment

  async function encodeText(text) {
    if (typeof CompressionStream !== "function") return "t" + encodeURIComponent(text);
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let binary = "";
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return "z" + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  async function decodeText(encoded) {
    if (encoded[0] === "t") return decodeURIComponent(encoded.slice(1));
    const base64 = encoded.slice(1).replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return await new Response(stream).text();
  }

  function fragmentOf(withTime) {
    if (editedFragment === null && file === null) return location.hash;
    const parts = [];
    if (editedFragment !== null) parts.push("json=" + editedFragment);
    else parts.push("scenario=" + encodeURIComponent(file.replace(/\.json$/, "")));
    parts.push("seed=" + state.seed, "speed=" + state.speed);
    if (state.focus >= 0) parts.push("focus=" + (state.focus + 1));
    if (withTime) parts.push("t=" + state.now_ms);
    return "#" + parts.join("&");
  }

  // ------------------------------------------------------------------ loading

  function libraryText(name) {
    return Module.FS.readFile("/scenarios/" + name, { encoding: "utf8" });
  }

  // Shows text (named source in error lines); false, with the loader's errors shown, when it
  // does not load (the view keeps the previous scenario then).
  function load(source, text, seed, speed, focus) {
    const status = call("web_load", "number", ["string", "string", "string", "number", "number"],
                        [source, text, seed, speed, focus]);
    const errors = $("errors");
    if (status !== 0) {
      errors.textContent = status === 2 ? call("web_errors", "string", [])
        : "the view could not start: see the browser's console";
      errors.hidden = false;
      openPanel("json-panel", true);
      return false;
    }
    errors.hidden = true;
    $("json").value = text;
    poll();
    fillFocus();
    return true;
  }

  function loadFile(name, seed, speed, focus) {
    file = name;
    editedText = editedFragment = null;
    $("scenario").value = name;
    return load("scenarios/" + name, libraryText(name), seed, speed, focus);
  }

  async function loadEdited(text, seed, speed, focus) {
    const previous = [editedText, editedFragment];
    editedFragment = await encodeText(text);
    editedText = text;
    if (!load("edited scenario", text, seed, speed, focus)) {
      [editedText, editedFragment] = previous;
      return false;
    }
    $("scenario").value = "";
    return true;
  }

  async function start() {
    library = JSON.parse(call("web_library", "string"));
    const picker = $("scenario");
    const edited = new Option("(edited JSON)", "");
    edited.disabled = true;
    picker.add(edited);
    for (const entry of library) picker.add(new Option(entry.title || entry.name, entry.file));
    for (const speed of SPEEDS) {
      const label = speed >= 1 ? speed + "×" : "1/" + 1 / speed + "×";
      $("speed").add(new Option(label, String(speed)));
    }
    const wanted = new URLSearchParams(location.hash.slice(1));
    const seed = wanted.get("seed") || "";
    const speed = Number(wanted.get("speed")) || 0;
    const focus = wanted.has("focus") ? Number(wanted.get("focus")) - 1 : -1;
    let loaded = false;
    if (wanted.has("json")) {
      try {
        loaded = await loadEdited(await decodeText(wanted.get("json")), seed, speed, focus);
      } catch (error) {
        console.warn("the link's scenario cannot be read:", error);
      }
    }
    if (!loaded) {
      const asked = (wanted.get("scenario") || "default") + ".json";
      const known = library.some((entry) => entry.file === asked);
      loaded = loadFile(known ? asked : library[0].file, seed, speed, focus);
    }
    if (wanted.has("t")) {
      call("web_run_to", null, ["number"], [Number(wanted.get("t"))]);
      atMoment = true;
    }
    $("loading").hidden = true;
    $("canvas").focus();
    poll();
    setInterval(poll, POLL_MS);
    document.body.dataset.readyMs = Math.round(performance.now());
    document.body.dataset.ready = "true";
  }

  // ------------------------------------------------------------------ keeping in step

  function fillFocus() {
    const focus = $("focus");
    while (focus.options.length > 1) focus.remove(1);
    (state.modes || []).forEach((mode, index) => focus.add(new Option(mode.mode, String(index))));
  }

  function describe(mode) {
    return `${mode.mode}: ok ${mode.ok} · double ${mode.doubles_so_far} · lost ${mode.lost}` +
      ` · phantom ${mode.phantom}` + (mode.mismatch ? ` · mismatch ${mode.mismatch}` : "");
  }

  function poll() {
    const text = call("web_state", "string");
    state = JSON.parse(text);
    if (state.modes === undefined) return;
    const counters = $("counters");
    counters.dataset.state = text;
    counters.dataset.nowMs = state.now_ms;
    counters.dataset.finished = state.finished;
    counters.textContent = `t ${(state.now_ms / 1000).toFixed(1)} s` +
      (state.finished ? " (finished)" : "") + " — " + state.modes.map(describe).join("  |  ");
    const seed = $("seed");
    if (document.activeElement !== seed) seed.value = state.seed;
    $("speed").value = String(state.speed);
    $("focus").value = String(state.focus);
    $("pause").textContent = state.paused ? "Resume" : "Pause";
    if (!$("run-panel").hidden && tableKey() !== tableOf) refreshRunTable();
    if (atMoment && !state.paused) atMoment = false;
    const fragment = fragmentOf(atMoment);
    if (fragment !== shownFragment) {
      history.replaceState(null, "", fragment);
      shownFragment = fragment;
    }
  }

  // ------------------------------------------------------------------ panels and downloads

  function openPanel(id, open) {
    const panel = $(id);
    const button = $(id === "json-panel" ? "toggle-json" : "toggle-run");
    panel.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    // SDL follows the canvas's CSS size on the window's resize event.
    window.dispatchEvent(new Event("resize"));
    if (id === "run-panel" && open) refreshRunTable();
  }

  // The table belongs to a scenario and a seed: the keys r and s, the seed field or another
  // scenario make it stale (poll notices).
  const tableKey = () => state.scenario + " " + state.seed + " " + (editedFragment || file);

  function refreshRunTable() {
    if ($("run-panel").hidden) return;
    tableOf = tableKey();
    $("run-table").textContent = "running every mode to its end…";
    // Let the browser paint the notice before the runs take the thread.
    setTimeout(() => { $("run-table").textContent = call("web_run_table", "string"); }, 30);
  }

  function download(blob, name) {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  }

  function offerPng(rgba, width, height, name) {
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    canvas.getContext("2d").putImageData(
      new ImageData(new Uint8ClampedArray(rgba.buffer), width, height), 0, 0);
    canvas.toBlob((blob) => download(blob, name), "image/png");
  }

  // ------------------------------------------------------------------ controls

  $("scenario").addEventListener("change", (event) => {
    if (event.target.value) loadFile(event.target.value, "", state.speed, -1);
  });
  $("seed").addEventListener("change", (event) => {
    if (/^\d+$/.test(event.target.value))
      call("web_restart", "number", ["string"], [event.target.value]);
  });
  $("speed").addEventListener("change", (event) =>
    call("web_set_speed", null, ["number"], [Number(event.target.value)]));
  $("focus").addEventListener("change", (event) =>
    call("web_set_focus", null, ["number"], [Number(event.target.value)]));
  $("pause").addEventListener("click", () =>
    call("web_set_paused", null, ["number"], [state.paused ? 0 : 1]));
  $("restart").addEventListener("click", () => call("web_restart", "number", ["string"], [""]));
  $("toggle-json").addEventListener("click", () =>
    openPanel("json-panel", $("json-panel").hidden));
  $("toggle-run").addEventListener("click", () => openPanel("run-panel", $("run-panel").hidden));
  $("apply").addEventListener("click", () =>
    loadEdited($("json").value, state.seed, state.speed, state.focus));
  $("revert").addEventListener("click", () => {
    if (file !== null) loadFile(file, "", state.speed, state.focus);
  });
  $("svg").addEventListener("click", () => {
    const svg = call("web_svg", "string");
    const mode = call("web_svg_mode", "string");
    download(new Blob([svg], { type: "image/svg+xml" }),
             `idemsim-${state.scenario}-${mode}-seed${state.seed}.svg`);
  });
  $("link").addEventListener("click", async () => {
    call("web_set_paused", null, ["number"], [1]);
    atMoment = true;
    poll();
    const button = $("link");
    try {
      await navigator.clipboard.writeText(location.href);
      button.textContent = "Link copied";
    } catch (error) {
      button.textContent = "Link in the address bar";
    }
    setTimeout(() => { button.textContent = "Link here"; }, 2500);
  });
  // Keys typed in the page's fields stay there; a click on the picture gives it the keys.
  $("canvas").addEventListener("mousedown", () => $("canvas").focus());
})();
