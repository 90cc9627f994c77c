// Compiles a WebAssembly module off the page's main thread and hands the
// compiled module back. Streaming compilation decodes and validates the
// bytes as they arrive on the thread that asked for it: asked for in the
// canvas's frame, which shares the host page's main thread, that was
// hundreds of milliseconds of blocked main thread for the canvas's 18 MB
// (Lighthouse's total blocking time, README.md's Performance table). A
// WebAssembly.Module can be posted between a page and its own workers
// (wasm/README.md, "Start-up on the page's main thread").
"use strict";
// The page fetches (so that the request is the frame's own) and posts the
// response's body here as a stream, with its Content-Type.
self.onmessage = (e) => {
  const { body, type } = e.data;
  const response = new Response(body, { headers: { "Content-Type": String(type || "") } });
  const compiled = WebAssembly.compileStreaming
    ? WebAssembly.compileStreaming(response)
    : response.arrayBuffer().then((b) => WebAssembly.compile(b));
  compiled.then(
    (module) => self.postMessage({ module }),
    (err) => self.postMessage({ error: String(err) }),
  );
};
