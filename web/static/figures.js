// Figure export: the Export panel in #export and window.headlabFigures,
// which window.headlab.figure delegates to. Figures are made by a Web Worker
// (static/figures-worker.js) running the figures program, started on first
// use only, so the page's first load does not fetch it.
//
// headlabFigures.figure(fmt, opts) returns a Promise of the current view's
// figure: a string for "svg" (the SVG text, byte for byte what
// `go run ./plots/cmd/figures -link LINK` writes), a Uint8Array for "pdf"
// and "png". opts may set dpi (150, 300, 600), size ("one" | "two" columns),
// font (points) and link (default: the page's current link).
// headlabFigures.csv(opts) returns a Promise of the figure's data as CSV.
// headlabFigures.last holds the timings of the last figure: ms inside Go,
// workerMs in the worker, roundMs for the whole round trip.
"use strict";
(function () {
  let worker = null;
  let nextId = 1;
  const pending = new Map();

  function start() {
    if (worker) return worker;
    worker = new Worker("static/figures-worker.js");
    worker.onmessage = (e) => {
      const { id, result } = e.data || {};
      const p = pending.get(id);
      if (!p) return;
      pending.delete(id);
      if (result && result.ok) p.resolve(result);
      else p.reject(new Error("headlab: figure: " + ((result && result.error) || "failed")));
    };
    worker.onerror = (e) => {
      const msg = "headlab: the figures worker failed: " + (e.message || "error");
      for (const p of pending.values()) p.reject(new Error(msg));
      pending.clear();
      worker = null;
    };
    return worker;
  }

  function request(req) {
    const w = start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      w.postMessage({ id, request: req });
    });
  }

  function currentLink() {
    const hl = window.headlab;
    return hl && typeof hl.link === "function" ? hl.link() : location.hash;
  }

  const FORMATS = ["svg", "pdf", "png"];

  function build(fmt, opts) {
    opts = opts || {};
    const format = String(fmt || "svg").toLowerCase();
    if (!FORMATS.includes(format)) {
      return Promise.reject(new Error("headlab: figure format " + JSON.stringify(String(fmt).slice(0, 16)) + " is not svg, pdf or png"));
    }
    const req = {
      link: String(opts.link || currentLink()),
      format,
      dpi: Number(opts.dpi || 300),
      size: String(opts.size || "one"),
      font: Number(opts.font || 8),
      csv: !!opts.csv,
    };
    const t0 = performance.now();
    return request(req).then((r) => {
      api.last = { format, name: r.name, ms: r.ms, workerMs: r.workerMs, roundMs: performance.now() - t0, bytes: r.bytes.length };
      return r;
    });
  }

  const api = {
    last: null,
    started: () => worker !== null,
    figure(fmt, opts) {
      return build(fmt, opts).then((r) => (r.bytes && String(fmt).toLowerCase() === "svg" ? new TextDecoder().decode(r.bytes) : r.bytes));
    },
    csv(opts) {
      return build("svg", Object.assign({}, opts, { csv: true })).then((r) => r.csv);
    },
    // file(fmt, opts) resolves with {name, blob} ready to download.
    file(fmt, opts) {
      return build(fmt, opts).then((r) => ({ name: "headlab-" + r.name + "." + fmt, blob: new Blob([r.bytes], { type: MIME[fmt] }) }));
    },
  };
  const MIME = { svg: "image/svg+xml", pdf: "application/pdf", png: "image/png", csv: "text/csv" };
  window.headlabFigures = api;

  // ---- the Export panel ----
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    Object.assign(e, props || {});
    for (const k of kids) e.append(k);
    return e;
  }

  function download(name, blob) {
    const a = el("a", { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }

  function buildPanel() {
    const root = document.getElementById("export");
    if (!root) return;
    const format = el("select", { id: "export-format", name: "format" },
      el("option", { value: "svg", textContent: "SVG" }),
      el("option", { value: "pdf", textContent: "PDF" }),
      el("option", { value: "png", textContent: "PNG" }));
    const dpi = el("select", { id: "export-dpi", name: "dpi", disabled: true },
      el("option", { value: "150", textContent: "150 dpi" }),
      el("option", { value: "300", textContent: "300 dpi", selected: true }),
      el("option", { value: "600", textContent: "600 dpi" }));
    const size = el("select", { id: "export-size", name: "size" },
      el("option", { value: "one", textContent: "one column (3.25 in)" }),
      el("option", { value: "two", textContent: "two columns (6.75 in)" }));
    const font = el("input", { id: "export-font", name: "font", type: "number", min: "5", max: "14", step: "0.5", value: "8" });
    const go = el("button", { type: "button", id: "export-download", textContent: "Download" });
    const data = el("button", { type: "button", id: "export-csv", textContent: "Data (CSV)" });
    const status = el("p", { id: "export-status", className: "hint" });
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    const details = el("details", { className: "export-details" },
      el("summary", { textContent: "Export figure" }),
      el("div", { className: "export-grid" },
        el("label", {}, "Format ", format),
        el("label", {}, "Resolution ", dpi),
        el("label", {}, "Size ", size),
        el("label", {}, "Text (pt) ", font)),
      el("div", { className: "export-actions" }, go, data),
      status);
    root.append(details);
    // The worker starts when the panel is first opened, so a download is
    // quick; the page's start-up never fetches it.
    details.addEventListener("toggle", () => { if (details.open) start(); });
    format.addEventListener("change", () => { dpi.disabled = format.value !== "png"; });
    const opts = () => ({ dpi: Number(dpi.value), size: size.value, font: Number(font.value) || 8 });
    const busy = (on, msg) => {
      go.disabled = data.disabled = on;
      status.textContent = msg;
    };
    go.addEventListener("click", () => {
      const fmt = format.value;
      busy(true, "Making the " + fmt.toUpperCase() + "…");
      api.file(fmt, opts()).then((f) => {
        download(f.name, f.blob);
        busy(false, "Saved " + f.name + " (" + Math.round(f.blob.size / 1024) + " kB, " + Math.round(api.last.roundMs) + " ms). The link is inside the file.");
      }, (err) => busy(false, String(err.message || err)));
    });
    data.addEventListener("click", () => {
      busy(true, "Collecting the data…");
      build("svg", Object.assign(opts(), { csv: true })).then((r) => {
        const name = "headlab-" + r.name + ".csv";
        download(name, new Blob([r.csv], { type: MIME.csv }));
        busy(false, "Saved " + name + ".");
      }, (err) => busy(false, String(err.message || err)));
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", buildPanel);
  else buildPanel();
})();
