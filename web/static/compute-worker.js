// The compute worker: runs a compute program (Go compiled to WebAssembly;
// the compute loop of wasm/compute, which documents the job protocol, and
// never ebiten) off the page's threads. The page's first message is
// {op: "boot", module}: a compiled WebAssembly.Module, so the program is
// neither fetched nor compiled again. A page that booted the full canvas
// hands over the canvas's own module (that build starts the compute loop
// where there is no document); a page that booted the canvas built without
// it (nocompute: the landing and Attention) has none at first, and its
// first worker fetches and compiles wasm/computeworker, whose module the
// ready message carries back for any worker started after one died
// (wasm/README.md, "Two builds of the canvas"). The ready message says how
// the program came ({op: "ready", via: "module" or "fetch"}, and after a
// fetch which: program "computeworker" or "canvas"). Messages go
// to the program once it is ready; if the program ends (a panic kills it),
// the worker says so ({op: "dead", error}) and closes. Where
// wasm/computeworker cannot be fetched (offline: the offline copy leaves
// it out), the worker runs the full canvas's wasm instead, which starts the
// same loop where there is no document. The site builder writes the wasm
// names in place of the placeholders below.
"use strict";
importScripts("wasm_exec.js");

const url = "../__WASM_computeworker__";
const fallbackURL = "../__WASM_canvas__";
const queued = [];
let booted = false;
let via = ""; // how the program came: "module" (handed over) or "fetch"
let compiled = null; // the module compiled here after a fetch, for the page
let program = ""; // after a fetch: "computeworker", or "canvas" in its place
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
    if (compiled) msg.module = compiled;
    if (program) msg.program = program;
    for (const m of queued.splice(0)) self.headlabComputeMessage(m);
  }
  try {
    realPost(msg, transfer || []);
  } catch (err) {
    // A browser that cannot pass a compiled module back (DataCloneError):
    // the page starts its next worker without one.
    if (!msg || !msg.module) throw err;
    delete msg.module;
    realPost(msg, transfer || []);
  }
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

// instantiate runs the program: from module, handed over by the page, or
// else from the wasm fetched and compiled here, whose module the ready
// message then carries.
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
  const viaBuffer = (u) => fetch(u).then((r) => {
    if (!r.ok) throw new Error("fetching the compute program: HTTP " + r.status);
    return r.arrayBuffer();
  }).then((b) => WebAssembly.instantiate(b, go.importObject));
  const load = (u) => WebAssembly.instantiateStreaming
    ? WebAssembly.instantiateStreaming(fetch(u), go.importObject).catch(() => viaBuffer(u))
    : viaBuffer(u);
  // The compute program is not in the offline copy (web/cmd/site -online):
  // without it, the full canvas, which runs the same loop where there is
  // no document, and which the offline copy keeps.
  program = "computeworker";
  const inst = load(url).catch((err) => {
    console.warn("headlab: the compute program could not load (" + String(err) + "); running the full canvas's");
    program = "canvas";
    return load(fallbackURL);
  });
  return inst.then((result) => {
    compiled = result.module;
    return run(result.instance);
  });
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
