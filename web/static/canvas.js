// Boots the canvas program (Go compiled to WebAssembly, drawn by ebiten)
// inside the page's iframe. The wasm's name carries a hash of its content;
// the site builder writes it in place of the placeholder below.
"use strict";
(function () {
  const url = "../__WASM_canvas__";
  const go = new Go();
  const fail = (err) => {
    const host = window.parent && window.parent.headlabHost;
    if (host && host.error) host.error("the canvas could not start: " + err);
  };
  const start = (result) => go.run(result.instance);
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
  // The module is compiled in a worker (static/compile-worker.js), off the
  // main thread this frame shares with the host page; only instantiating
  // it and running Go happen here. Where that fails, it is compiled here.
  const here = () => {
    if (WebAssembly.instantiateStreaming) {
      return WebAssembly.instantiateStreaming(fetch(url), go.importObject).catch((err) => {
        // Some static hosts serve .wasm with the wrong type: fall back.
        console.warn("streaming compile failed, retried:", String(err));
        return fetch(url).then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject));
      });
    }
    return fetch(url).then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject));
  };
  // The frame fetches the wasm itself and hands the worker the body as a
  // stream: a fetch that fails fails here, as before, and only compiling
  // moves. A worker that fails (some static hosts serve .wasm with the wrong
  // type) leaves the compiling to this thread, with a second fetch.
  const inWorker = () => fetch(url).then((r) => {
    if (!r.ok) throw new Error("fetching the canvas: HTTP " + r.status);
    return new Promise((resolve, reject) => {
      const w = new Worker("compile-worker.js");
      w.onmessage = (e) => {
        w.terminate();
        if (e.data && e.data.module instanceof WebAssembly.Module) resolve(e.data.module);
        else reject(new Error(e.data && e.data.error ? e.data.error : "no module"));
      };
      w.onerror = (e) => {
        w.terminate();
        reject(new Error(e.message || "the compile worker failed"));
      };
      w.postMessage({ body: r.body, type: r.headers.get("Content-Type") }, [r.body]);
    }).catch((err) => {
      console.warn("compiling in a worker failed, compiling here:", String(err));
      return null;
    });
  }).then((module) => (module
    ? WebAssembly.instantiate(module, go.importObject).then((instance) => ({ instance }))
    : here()));
  (typeof Worker === "function" && window.ReadableStream ? inWorker() : here()).then(start).catch(fail);
})();
