// The compute worker: runs the compute program (Go compiled to WebAssembly,
// without ebiten or plotting; see wasm/compute, which documents the job
// protocol) off the page's threads. Messages from the page go to the
// program once it is ready; if the program ends (a panic kills it), the
// worker says so ({op: "dead", error}) and closes. The wasm's name carries
// a hash of its content; the site builder writes it in place of the
// placeholder below.
"use strict";
importScripts("wasm_exec.js");

const url = "../__WASM_compute__";
const queued = [];
let ready = false;
let dead = false;

function die(msg) {
  if (dead) return;
  dead = true;
  self.postMessage({ op: "dead", error: String(msg) });
  self.close();
}

// A zero-delay yield for the program: it posts here and waits, so the
// event loop delivers the page's messages (a cancel) in between.
const yc = new MessageChannel();
yc.port1.onmessage = () => self.headlabComputeResume();
self.headlabComputeYield = () => yc.port2.postMessage(0);

const realPost = self.postMessage.bind(self);
self.postMessage = (msg, transfer) => {
  if (msg && msg.op === "ready") {
    ready = true;
    for (const m of queued.splice(0)) self.headlabComputeMessage(m);
  }
  realPost(msg, transfer || []);
};

function instantiate() {
  const go = new Go();
  go.exit = (code) => { go.exitCode = code; };
  const run = (result) => go.run(result.instance).then(() => die("the compute program exited (code " + go.exitCode + ")"));
  const viaBuffer = () => fetch(url).then((r) => {
    if (!r.ok) throw new Error("fetching the compute program: HTTP " + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.instantiate(b, go.importObject));
  const inst = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch(url), go.importObject).catch(viaBuffer)
    : viaBuffer();
  return inst.then(run);
}

instantiate().catch((err) => die("the compute program could not start: " + (err && err.message || err)));

self.onmessage = (e) => {
  const m = e.data || {};
  if (dead) return;
  if (!ready) queued.push(m);
  else self.headlabComputeMessage(m);
};
