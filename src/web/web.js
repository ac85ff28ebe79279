// The page around the C view (src/web/web_main.c): the controls call its entry points, and
// a poll of web_state() keeps the controls, the counters below the picture and the URL
// fragment in step with what the view does (its keys change the same state). Nothing here
// draws the simulation: the canvas is SDL's.
//
// The fragment holds the page's state, so a link opens the same run:
//   #scenario=01_lost_answer&seed=42&speed=0.5&focus=2&t=8000
//   #json=<the edited scenario, deflated, base64url>&seed=...   (an edited scenario)
//   #scenario=08_key_reuse_no_fingerprint&predict=1&projector=1    (the workshop)
// t (simulated ms) is added by "Link to this moment": the page runs to t and pauses there.
// predict=1 stops at the scenario's questions as `idemsim view --predict` does (counters,
// the footer's too, hidden until the reveal); projector=1 is --projector's back-row type.
// A link the page cannot follow (an unknown scenario, a time that is not one) says so in a
// banner rather than opening something else without a word.
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
  let predict = false;        // the link asked for predict=1
  let projector = false;
  const LINK_KEYS = ["scenario", "json", "seed", "speed", "focus", "t", "predict", "projector"];

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
    if (predict) parts.push("predict=1");
    if (projector) parts.push("projector=1");
    return "#" + parts.join("&");
  }

  // ------------------------------------------------------------------ loading

  function libraryText(name) {
    return Module.FS.readFile("/scenarios/" + name, { encoding: "utf8" });
  }

  // Shows text (named source in error lines); false, with the loader's errors shown, when it
  // does not load (the view keeps the previous scenario then).
  function load(source, text, seed, speed, focus) {
    const status = call("web_load", "number",
                        ["string", "string", "string", "number", "number", "number", "number"],
                        [source, text, seed, speed, focus, predict ? 1 : 0, projector ? 1 : 0]);
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
    const problems = linkProblems(wanted);
    predict = flag(wanted, "predict");
    projector = flag(wanted, "projector");
    const seed = /^\d+$/.test(wanted.get("seed") || "") ? wanted.get("seed") : "";
    const speed = Number(wanted.get("speed")) > 0 ? Number(wanted.get("speed")) : 0;
    const focus = /^[1-3]$/.test(wanted.get("focus") || "") ? Number(wanted.get("focus")) - 1 : -1;
    let loaded = false;
    if (wanted.has("json")) {
      try {
        loaded = await loadEdited(await decodeText(wanted.get("json")), seed, speed, focus);
      } catch (error) {
        problems.push("the link's edited scenario (json=) cannot be read: " + error.message);
      }
      if (!loaded && problems.length === 0)
        problems.push("the link's edited scenario (json=) does not load: its errors are in " +
                      "the editor");
    }
    if (!loaded) {
      const asked = (wanted.get("scenario") || "default") + ".json";
      const known = library.some((entry) => entry.file === asked);
      const fallback = library.some((entry) => entry.file === "default.json")
        ? "default.json" : library[0].file;
      if (!known)
        problems.push(`no scenario "${wanted.get("scenario")}" in the library: showing ` +
                      `${fallback.replace(/\.json$/, "")} instead (the Scenario list has ` +
                      "every name)");
      loaded = loadFile(known ? asked : fallback, seed, speed, focus);
    }
    if (focus >= (state.modes || []).length) problems.push(`focus=${focus + 1}: this scenario ` +
                                                           `has ${state.modes.length} modes`);
    if (predict && !state.predict)
      problems.push("predict=1: this scenario asks no questions, so it runs as without it " +
                    "(the scenarios with questions are C1 to C24)");
    if (wanted.has("t") && timeOf(wanted.get("t")) !== null) {
      call("web_run_to", null, ["number"], [timeOf(wanted.get("t"))]);
      atMoment = true;
    }
    showBanner(problems);
    $("loading").hidden = true;
    $("canvas").focus();
    poll();
    setInterval(poll, POLL_MS);
    document.body.dataset.readyMs = Math.round(performance.now());
    document.body.dataset.ready = "true";
  }

  // ------------------------------------------------------------------ the link's words

  const flag = (wanted, key) => wanted.has(key) && wanted.get(key) !== "0";
  // A time in simulated ms: digits, optionally with a fraction; null when it is not one.
  const timeOf = (text) => (/^\d+(\.\d+)?$/.test(text) ? Number(text) : null);

  // What in the link cannot be followed: each a sentence naming the part and why.
  function linkProblems(wanted) {
    const problems = [];
    for (const key of wanted.keys()) {
      if (!LINK_KEYS.includes(key))
        problems.push(`"${key}" is not something a link can set (it can set ` +
                      LINK_KEYS.join(", ") + ")");
    }
    const check = (key, valid, words) => {
      if (wanted.has(key) && !valid(wanted.get(key)))
        problems.push(`${key}=${wanted.get(key)}: ${words}`);
    };
    check("t", (v) => timeOf(v) !== null,
          "not a time (simulated milliseconds, e.g. t=8000): the run starts at 0");
    check("seed", (v) => /^\d+$/.test(v), "not a seed (a whole number): the scenario's own is used");
    check("speed", (v) => Number(v) > 0, "not a speed (e.g. 0.5, 4): the default is used");
    check("focus", (v) => /^[0-3]$/.test(v), "not a mode (1, 2 or 3; 0 for all): all are shown");
    for (const key of ["predict", "projector"])
      check(key, (v) => v === "0" || v === "1", "1 or 0");
    return problems;
  }

  function showBanner(problems) {
    const banner = $("banner");
    banner.hidden = problems.length === 0;
    $("banner-text").textContent = problems.length
      ? "This link cannot be followed as written: " + problems.join("; ") + "." : "";
    document.body.dataset.linkProblems = String(problems.length);
    window.dispatchEvent(new Event("resize"));
  }

  // ------------------------------------------------------------------ keeping in step

  function fillFocus() {
    const focus = $("focus");
    while (focus.options.length > 1) focus.remove(1);
    (state.modes || []).forEach((mode, index) => focus.add(new Option(mode.mode, String(index))));
  }

  // The footer says what the canvas says: what a question hides is "?" here too, since
  // the footer once printed the answer while the room was voting.
  function describe(mode) {
    const hidden = state.question ? state.question.hidden : [];
    const shown = (name, value) => (hidden.includes(name) ? "?" : value);
    const mismatch = mode.mismatch || hidden.includes("mismatch");
    return `${mode.mode}: ok ${shown("ok", mode.ok)} · double ` +
      `${shown("double", mode.doubles_so_far)} · lost ${shown("lost", mode.lost)}` +
      ` · phantom ${shown("phantom", mode.phantom)}` +
      (mismatch ? ` · mismatch ${shown("mismatch", mode.mismatch)}` : "");
  }

  function describeQuestion() {
    if (!state.predict) return "";
    const question = state.question;
    if (question.phase === "over") return `all ${state.questions} questions asked · `;
    const number = `question ${question.index + 1} of ${state.questions}`;
    return question.phase === "asking" ? `${number}: vote, then Reveal (space) · `
      : question.phase === "revealed" ? `${number} revealed: Run on (space) · `
      : `${number} coming · `;
  }

  // On a laptop a panel opens over the picture's right side (web.css): the view draws its
  // help, story and question card left of it rather than half under it.
  function coverPicture() {
    const canvas = $("canvas").getBoundingClientRect();
    let covered = 0;
    for (const id of ["json-panel", "run-panel"]) {
      if (!$(id).hidden)
        covered = Math.max(covered, canvas.right - $(id).getBoundingClientRect().left);
    }
    const scale = canvas.width > 0 ? $("canvas").width / canvas.width : 1;
    call("web_set_covered_right", null, ["number"], [Math.max(0, Math.round(covered * scale))]);
  }

  function poll() {
    coverPicture();
    const text = call("web_state", "string");
    state = JSON.parse(text);
    if (state.modes === undefined) return;
    const counters = $("counters");
    counters.dataset.state = text;
    counters.dataset.nowMs = state.now_ms;
    counters.dataset.finished = state.finished;
    counters.dataset.hidden = state.question.hidden.join(" ");
    counters.textContent = describeQuestion() + `t ${(state.now_ms / 1000).toFixed(1)} s` +
      (state.finished ? " (finished)" : "") + " — " + state.modes.map(describe).join("  |  ");
    const press = $("quiz-press");
    press.hidden = !state.predict || state.question.phase === "over" ||
      state.question.phase === "waiting";
    press.textContent = state.question.phase === "asking" ? "Reveal" : "Run on";
    $("projector").setAttribute("aria-pressed", String(state.projector));
    $("help").setAttribute("aria-pressed", String(state.help));
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
    coverPicture();
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
  $("quiz-press").addEventListener("click", () => {
    call("web_quiz_press", "number", []);
    poll();
  });
  $("projector").addEventListener("click", () => {
    projector = !state.projector;
    call("web_set_projector", null, ["number"], [projector ? 1 : 0]);
    poll();
  });
  $("help").addEventListener("click", () => {
    call("web_set_help", null, ["number"], [state.help ? 0 : 1]);
    poll();
    $("canvas").focus();
  });
  $("banner-close").addEventListener("click", () => showBanner([]));
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
  // f: full screen. The view asks for it while it draws its next frame, after the key's own
  // event has ended, and a browser grants it only inside an event of the user: the picture
  // went full screen at the next key or click, not at f. So the page asks here, in the key's
  // handler (capturing, before the view's), for the picture's stage, and the view never
  // sees this f.
  $("canvas").addEventListener("keydown", (event) => {
    if (event.key !== "f" || event.ctrlKey || event.metaKey || event.altKey)
      return;
    event.stopImmediatePropagation();
    event.preventDefault();
    if (document.fullscreenElement)
      document.exitFullscreen().catch(() => {});
    else
      $("stage").requestFullscreen().catch(() => {});
  }, true);
})();
