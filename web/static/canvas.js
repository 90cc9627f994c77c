// Boots the canvas program (Go compiled to WebAssembly, drawn by ebiten)
// inside the page's iframe. There are two builds of it (wasm/README.md,
// "Two builds of the canvas"): the full one, which is the compute worker's
// program too, for a page that opens on a scene that computes at once, and
// one without the compute loop's numerics (the nocompute tag), an eighth
// smaller, for the chooser and the Attention scene, whose compute worker,
// if a later scene wants one, fetches wasm/computeworker instead. A page
// that cannot load the lean build (the offline copy leaves it out) boots
// the full one. The full build's compiled module goes to the compute
// worker's client (compute.js), so the worker neither fetches nor compiles
// it again. The wasm names carry a hash of their content; the site builder
// writes them in place of the placeholders below.
"use strict";
(function () {
  // The scenes that start a computation as they open: a link to one of
  // them, or one that carries a recorded run (which opens Recovery's
  // replay), boots the full build; a link-less visit (the chooser) or a
  // link to any other scene (web/link opens Attention for a scene it does
  // not know) boots the lean one. The link is the page's, read as boot.js
  // reads it.
  const COMPUTING = ["atoms", "recovery", "transformer"];
  let full = true; // the build that serves any view
  try {
    const p = new URLSearchParams(window.parent.location.hash.replace(/^#/, ""));
    full = COMPUTING.includes(p.get("scene")) || p.has("run");
  } catch (err) {
    // A parent of another origin: the full build.
  }
  const fullURL = "../__WASM_canvas__";
  const url = full ? fullURL : "../__WASM_canvas-lean__";
  // Which build runs, for the tests (web/e2e).
  window.headlabCanvasBuild = full ? "full" : "lean";
  const go = new Go();
  // A failure is kept on this window too: the host page's module may not
  // have run yet (a blocked fetch fails at once), and then reads it there.
  const fail = (err) => {
    const msg = "the canvas could not start: " + err;
    window.headlabCanvasFailed = msg;
    const host = window.parent && window.parent.headlabHost;
    if (host && host.error) host.error(msg);
  };
  // The full build's compiled module goes to the compute worker's client
  // too: the worker runs this same program (wasm/canvas starts the compute
  // loop where there is no document), so it is neither fetched nor compiled
  // twice.
  const start = (result) => {
    if (full && window.headlabCompute) window.headlabCompute.module = result.module;
    // The program's linear memory, in bytes, for the soak benchmark
    // (web/e2e): it only grows, so it is the Go heap's high-water mark.
    window.headlabWasmBytes = () => result.instance.exports.mem.buffer.byteLength;
    return go.run(result.instance);
  };
  // Keys pressed while the canvas has focus go to the page's shortcuts.
  window.addEventListener("keydown", (e) => {
    const host = window.parent && window.parent.headlabHost;
    if (host && host.key && host.key({ key: e.key, ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey, target: null })) {
      e.preventDefault();
    }
  });
  // Tab moves the focus on: ebiten cancels every key pressed on its
  // canvas, which would trap a keyboard user there (WCAG 2.1.2).
  window.addEventListener("keydown", (e) => {
    if (e.key === "Tab") e.stopPropagation();
  }, true);
  // Dragging on the canvas must never scroll or zoom the page.
  document.documentElement.style.touchAction = "none";
  document.documentElement.style.overscrollBehavior = "none";
  // The wheel scrolls the page around the canvas (a course page that
  // embeds a scene) unless the canvas has the focus: ebiten cancels every
  // wheel event on its canvas, so it is kept from ebiten until a click has
  // given the canvas the focus. No scene reads the wheel.
  window.addEventListener("wheel", (e) => {
    if (!document.hasFocus()) e.stopImmediatePropagation();
  }, true);
  const chain = () => (document.documentElement.style.overscrollBehavior = document.hasFocus() ? "none" : "auto");
  window.addEventListener("focus", chain);
  window.addEventListener("blur", chain);
  chain();
  // load compiles and instantiates the program at u: streaming where the
  // browser can, else (or when a static host serves .wasm with the wrong
  // type) from the fetched bytes.
  const viaBuffer = (u) => fetch(u).then((r) => {
    if (!r.ok) throw new Error("HTTP " + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.instantiate(b, go.importObject));
  const load = (u) => !WebAssembly.instantiateStreaming ? viaBuffer(u) :
    WebAssembly.instantiateStreaming(fetch(u), go.importObject).catch((err) => {
      console.warn("streaming compile failed, retried:", String(err));
      return viaBuffer(u);
    });
  // The lean build is not in the offline copy (web/cmd/site -online): a
  // page that cannot load it, offline or from a host without it, boots the
  // full build, which serves every view.
  let loaded = load(url);
  if (!full) {
    loaded = loaded.catch((err) => {
      console.warn("headlab: the lean canvas could not load (" + String(err) + "); booting the full one");
      full = true;
      window.headlabCanvasBuild = "full";
      return load(fullURL);
    });
  }
  loaded.then(start).catch(fail);
})();
