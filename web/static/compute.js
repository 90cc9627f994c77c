// The compute worker's client, in the canvas's frame: window.headlabCompute
// starts jobs in the compute worker (static/compute-worker.js, the
// protocol in wasm/compute) and hands every answer to the canvas program,
// which sets headlabCompute.onmessage. Each worker is handed
// headlabCompute.module as it starts, so it fetches and compiles nothing:
// the full canvas's own module, which canvas.js sets (that build is the
// compute worker's program too), or, under the canvas built without the
// compute loop, the module of wasm/computeworker that the first worker
// fetched, compiled and posted back. The worker starts on the first job, so
// a scene without long work never starts a second program. A worker that dies fails
// its jobs ({op: "failed"}), shows a notice on the page
// (window.headlab.errors) and is started afresh by the next job.
//
//	start(key, job, kind)  job: an experiment.Job, encoded (a Uint8Array
//	                       made by experiment.EncodeJob), kind its Kind for
//	                       the log; returns the job's id
//	cancel(id)             stop a job (answered by {op: "cancelled"})
//	pace(on)               a drag is under way: the worker computes a quarter of the time
//	module                 the compute program's compiled module: the full
//	                       canvas's (set by canvas.js) or the first worker's
//	log                    the last jobs: {id, key, kind, op, ms}, newest last
//	restarts               workers started after one died
//	fetched                workers that fetched and compiled the compute
//	                       program themselves, for want of a module (none
//	                       under the full canvas; the first under the other)
//	programs               the programs the workers that fetched ran:
//	                       "computeworker", or "canvas" where it could not
//	                       be fetched (offline)
//	startMs                each worker's start-up: ms from its creation to
//	                       its program's ready message
//	wasmBytes              the worker program's linear memory, in bytes, as
//	                       its last message said (it only grows: the Go
//	                       heap's high-water mark; the soak benchmark reads it)
//
// Test hook: window.headlabComputeFault on the page (or in this frame) set
// to "panic" makes the next job kill the worker's program, as a bug would;
// it is read once and cleared. Only tests set it.
"use strict";
(function () {
  const MAX_LOG = 64;
  let worker = null;
  let nextId = 1;
  let paced = false;
  const jobs = new Map(); // id → {key, kind, entry}
  const host = () => (window.parent && window.parent.headlabHost) || null;

  function notice(msg) {
    const h = host();
    if (h && h.error) h.error(msg);
    else console.error(msg);
  }

  function deliver(msg) {
    const j = jobs.get(msg.id);
    if (!j) return;
    if (msg.op !== "progress") {
      jobs.delete(msg.id);
      j.entry.op = msg.op;
      if (typeof msg.ms === "number") j.entry.ms = msg.ms;
      if (msg.error) j.entry.error = msg.error;
    } else {
      j.entry.fraction = msg.fraction;
    }
    msg.key = j.key;
    if (typeof api.onmessage === "function") api.onmessage(msg);
  }

  function died(why) {
    worker = null;
    const msg = "headlab: the compute worker stopped (" + why + "); the page stays usable, and the next computation starts it afresh";
    notice(msg);
    for (const [id, j] of Array.from(jobs)) deliver({ op: "failed", id, error: why, key: j.key });
  }

  function start() {
    if (worker) return worker;
    if (api.started > 0) api.restarts++;
    api.started++;
    const w = new Worker("compute-worker.js");
    const t0 = performance.now();
    w.onmessage = (e) => {
      const msg = e.data || {};
      if (typeof msg.wasmBytes === "number") api.wasmBytes = msg.wasmBytes;
      if (msg.op === "dead") {
        w.terminate();
        if (worker === w) died(msg.error || "it ended");
        return;
      }
      if (msg.op === "ready") {
        if (msg.via !== "module") api.fetched++;
        if (!api.module && msg.module instanceof WebAssembly.Module) api.module = msg.module;
        if (msg.program) api.programs.push(msg.program);
        api.startMs.push(performance.now() - t0);
        return;
      }
      if (msg.op === "error") notice("headlab: a computation failed: " + msg.error);
      deliver(msg);
    };
    w.onerror = (e) => {
      e.preventDefault();
      w.terminate();
      if (worker === w) died(e.message || "an error in the worker");
    };
    worker = w;
    try {
      w.postMessage({ op: "boot", module: api.module });
    } catch (err) {
      // A browser that cannot pass a compiled module to a worker
      // (DataCloneError): the worker fetches the program itself.
      w.postMessage({ op: "boot", module: null });
    }
    if (paced) w.postMessage({ op: "pace", on: true });
    return w;
  }

  const api = {
    onmessage: null,
    module: null,
    log: [],
    started: 0,
    restarts: 0,
    fetched: 0,
    programs: [],
    startMs: [],
    wasmBytes: 0,
    start(key, job, kind) {
      const id = nextId++;
      kind = kind === undefined ? "?" : String(kind);
      const entry = { id, key: String(key), kind, op: "running" };
      api.log.push(entry);
      while (api.log.length > MAX_LOG) api.log.shift();
      jobs.set(id, { key: String(key), kind, entry });
      const msg = { op: "run", id, job };
      const page = window.parent && window.parent !== window ? window.parent : window;
      for (const w of [page, window]) {
        if (w.headlabComputeFault) {
          msg.fault = String(w.headlabComputeFault);
          w.headlabComputeFault = undefined;
        }
      }
      start().postMessage(msg);
      return id;
    },
    cancel(id) {
      if (worker && jobs.has(id)) worker.postMessage({ op: "cancel", id });
    },
    pace(on) {
      paced = !!on;
      if (worker) worker.postMessage({ op: "pace", on: paced });
    },
    running: () => jobs.size,
  };
  window.headlabCompute = api;
})();
