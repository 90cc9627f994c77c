// The compute worker: runs the canvas's own program (Go compiled to
// WebAssembly; where there is no document it runs the compute loop of
// wasm/compute, which documents the job protocol, and never ebiten) off
// the page's threads. The page's first message is {op: "boot", module}:
// the canvas's compiled WebAssembly.Module, so the program is neither
// fetched nor compiled again; without one (null) the worker fetches the
// wasm itself, which the browser's cache holds by then (hashed names are
// immutable); its ready message says which ({op: "ready", via: "module"
// or "fetch"}). Messages go to the program once it is ready; if the program
// ends (a panic kills it), the worker says so ({op: "dead", error}) and
// closes. The site builder writes the wasm's hashed name in place of the
// placeholder below.
"use strict";
importScripts("wasm_exec.js");

const url = "../__WASM_canvas__";
const queued = [];
let booted = false;
let via = ""; // how the program came: "module" (handed over) or "fetch"
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

// memory is the program's linear memory once it runs: every message the
// program posts carries its size in bytes (wasmBytes), which only grows
// (the Go heap's high-water mark), for the page's soak benchmark.
let memory = null;

const realPost = self.postMessage.bind(self);
self.postMessage = (msg, transfer) => {
  if (msg && memory) msg.wasmBytes = memory.buffer.byteLength;
  if (msg && msg.op === "ready") {
    ready = true;
    msg.via = via;
    for (const m of queued.splice(0)) self.headlabComputeMessage(m);
  }
  realPost(msg, transfer || []);
};

// The first line of a Go panic or fatal error in the program's output
// (wasm_exec.js writes Go's stdout and stderr through console.log), kept as
// it is written, before the stack that follows it: a program that dies
// says why with it.
let deathLine = "";
const consoleLog = console.log.bind(console);
console.log = (...args) => {
  const line = args.join(" ");
  if (!deathLine && /^(panic|fatal error)/.test(line)) deathLine = line;
  consoleLog(...args);
};

// instantiate runs the program: from module, the canvas's compiled
// WebAssembly.Module, or else from the wasm fetched here.
function instantiate(module) {
  const go = new Go();
  go.exit = (code) => { go.exitCode = code; };
  const run = (instance) => (memory = instance.exports.mem, go.run(instance)).then(() => {
    die("the compute program exited (code " + go.exitCode + ")" + (deathLine ? ": " + deathLine : ""));
  });
  if (module instanceof WebAssembly.Module) {
    via = "module";
    return WebAssembly.instantiate(module, go.importObject).then(run);
  }
  via = "fetch";
  const viaBuffer = () => fetch(url).then((r) => {
    if (!r.ok) throw new Error("fetching the compute program: HTTP " + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.instantiate(b, go.importObject));
  const inst = WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch(url), go.importObject).catch(viaBuffer)
    : viaBuffer();
  return inst.then((result) => run(result.instance));
}

function boot(module) {
  booted = true;
  instantiate(module).catch((err) => die("the compute program could not start: " + (err && err.message || err)));
}

self.onmessage = (e) => {
  const m = e.data || {};
  if (dead) return;
  if (!booted) {
    boot(m.op === "boot" ? m.module : null);
    if (m.op === "boot") return;
  }
  if (!ready) queued.push(m);
  else self.headlabComputeMessage(m);
};
