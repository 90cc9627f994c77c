// The figures worker: runs the figures program (Go compiled to WebAssembly,
// without ebiten; see wasm/figures) off the page's main thread. It answers
// messages {id, request} with {id, result}, result as headlabFiguresRender
// returns it (the file's bytes are transferred, not copied). The wasm's
// name carries a hash of its content; the site builder writes it in place of
// the placeholder below.
"use strict";
importScripts("wasm_exec.js");

const url = "../__WASM_figures__";
let ready;
const started = new Promise((resolve) => (ready = resolve));
self.headlabFiguresReady = () => ready();

function instantiate() {
  const go = new Go();
  const run = (result) => {
    go.run(result.instance).then(() => fail("the figures program exited"));
  };
  const viaBuffer = () => fetch(url).then((r) => {
    if (!r.ok) throw new Error("fetching the figures program: HTTP " + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.instantiate(b, go.importObject));
  const inst = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch(url), go.importObject).catch(viaBuffer)
    : viaBuffer();
  return inst.then(run);
}

let failure = null;
function fail(msg) {
  failure = String(msg);
  ready();
}

const boot = instantiate().catch((err) => fail("the figures program could not start: " + err));

self.onmessage = (e) => {
  const { id, request } = e.data || {};
  Promise.all([boot, started]).then(() => {
    if (failure) throw new Error(failure);
    const t0 = performance.now();
    const result = self.headlabFiguresRender(request || {});
    result.workerMs = performance.now() - t0;
    const transfer = result.bytes ? [result.bytes.buffer] : [];
    self.postMessage({ id, result }, transfer);
  }).catch((err) => self.postMessage({ id, result: { ok: false, error: String(err && err.message || err) } }));
};
