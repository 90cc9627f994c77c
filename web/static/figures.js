// Figure export: figures(currentLink) makes the page's figure maker,
// window.headlab.figures (window.headlab.figure delegates to it), and
// exportPanel(root, figs) builds the Export panel in #export. Figures are
// made by a Web Worker (static/figures-worker.js) running the figures
// program, started on first use only, so the page's first load does not
// fetch it.
//
// figures.figure(fmt, opts) returns a Promise of the current view's
// figure: a string for "svg" and "tex" (the text, byte for byte what
// `go run ./plots/cmd/figures -link LINK` writes), a Uint8Array for "pdf",
// "png" and "csv" (a zip of the figure's tables, one CSV each). opts may set
// dpi (150, 300, 600), size (a preset of PRESETS or a width such as
// "4.5in"), font (points), typeface ("serif" | "lm"; default the link's font
// key) and link (default: the page's current link).
// figures.csv(opts) returns a Promise of the figure's tables, an
// object mapping each file name (NAME-TABLE.csv) to its CSV text.
// figures.last holds the timings of the last figure: ms inside Go,
// workerMs in the worker, roundMs for the whole round trip.
import { el } from "./widgets.js";

// The width presets, written from plots.Presets and its table of the
// venues' widths (go test ./plots -run TestPagePresets -update).
const PRESETS = [
  ["one", "one column, 3.25 in (as icml)"],
  ["two", "two columns, 6.75 in (as icml-wide)"],
  ["acm", "ACM acmart, column: 3.34 in (241.15 pt)"],
  ["acm-wide", "ACM acmart, text width: 7.01 in (506.3 pt)"],
  ["ieee", "IEEEtran, column: 3.49 in (252 pt)"],
  ["ieee-wide", "IEEEtran, text width: 7.14 in (516 pt)"],
  ["icml", "ICML, column: 3.25 in (234.88 pt)"],
  ["icml-wide", "ICML, text width: 6.75 in (487.82 pt)"],
  ["neurips", "NeurIPS and ICLR, text width: 5.50 in (397.48 pt)"],
  ["neurips-half", "NeurIPS and ICLR, half width: 2.69 in (194.77 pt)"],
  ["lncs", "Springer LNCS, text width: 4.80 in (347.12 pt)"],
  ["lncs-half", "Springer LNCS, half width: 2.35 in (170.09 pt)"],
];
const FORMATS = ["svg", "pdf", "png", "tex", "csv"];

// figures returns the page's figure maker; currentLink() is the link a
// figure shows unless opts.link names another, and currentRun() the run
// log the page replays ({name, bytes}) or null: a figure of a replay is
// computed from its log, whose name and SHA-256 go into its metadata.
export function figures(currentLink, currentRun) {
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
      if (p.raw && result) p.resolve(result);
      else if (result && result.ok) p.resolve(result);
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

  // request sends req to the worker; raw resolves with the result even
  // when it is not ok (a layer file's error is a message to show).
  function request(req, raw) {
    const w = start();
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject, raw: !!raw });
      w.postMessage({ id, request: req });
    });
  }

  function build(fmt, opts) {
    opts = opts || {};
    const format = String(fmt || "svg").toLowerCase();
    if (!FORMATS.includes(format)) {
      return Promise.reject(new Error("headlab: figure format " + JSON.stringify(String(fmt).slice(0, 16)) + " is not svg, pdf, png, tex or csv"));
    }
    const req = {
      link: String(opts.link || currentLink()),
      format,
      dpi: Number(opts.dpi || 300),
      size: String(opts.size || "one"),
      font: Number(opts.font || 8),
      typeface: String(opts.typeface || ""),
    };
    const run = opts.link ? null : currentRun && currentRun();
    if (run) req.run = { name: String(run.name), bytes: run.bytes };
    const t0 = performance.now();
    return request(req).then((r) => {
      api.last = { format, name: r.name, ms: r.ms, workerMs: r.workerMs, roundMs: performance.now() - t0, bytes: r.bytes.length };
      return r;
    });
  }

  const api = {
    last: null,
    started: () => worker !== null,
    start,
    presets: PRESETS.map(([name, doc]) => ({ name, doc })),
    figure(fmt, opts) {
      const text = ["svg", "tex"].includes(String(fmt).toLowerCase());
      return build(fmt, opts).then((r) => (r.bytes && text ? new TextDecoder().decode(r.bytes) : r.bytes));
    },
    csv(opts) {
      return build("csv", opts).then((r) => Object.assign({}, r.tables));
    },
    // file(fmt, opts) resolves with {name, blob} ready to download (the
    // type is the format's media type: image/svg+xml, application/pdf,
    // image/png, application/x-tex, application/zip for the data).
    file(fmt, opts) {
      return build(fmt, opts).then((r) => ({ name: r.file, blob: new Blob([r.bytes], { type: r.mime }) }));
    },
    // layer(bytes, name, heads) reads a layer file (.npz or .safetensors,
    // bytes a Uint8Array) in the worker (web/layerimport) and resolves
    // with {ok, link (the current link with the file's layer), heads,
    // width, biased, source} or {ok: false, error, needHeads}. heads is
    // H, or 0 to take it from the file.
    layer(bytes, name, heads) {
      return request({ kind: "layer", bytes, name: String(name), heads: Number(heads) || 0, link: String(currentLink()) }, true);
    },
  };
  return api;
}

// ---- the Export panel ----

function download(name, blob) {
  const a = el("a", { href: URL.createObjectURL(blob), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// exportPanel builds the Export panel in root, making figures with figs
// (a figures() maker); field(key) is a link key's schema, which names the
// typefaces (the font key's allowed values and labels).
export function exportPanel(root, figs, field) {
  const format = el("select", { id: "export-format", name: "format" },
    el("option", { value: "svg", textContent: "SVG" }),
    el("option", { value: "pdf", textContent: "PDF" }),
    el("option", { value: "png", textContent: "PNG" }),
    el("option", { value: "tex", textContent: "TeX (PGF)", title: "PGF code for \\input: your LaTeX sets the labels" }),
    el("option", { value: "csv", textContent: "CSV (zip)", title: "the data: one CSV file per table, in a zip" }));
  const dpi = el("select", { id: "export-dpi", name: "dpi", disabled: true },
    el("option", { value: "150", textContent: "150 dpi" }),
    el("option", { value: "300", textContent: "300 dpi", selected: true }),
    el("option", { value: "600", textContent: "600 dpi" }));
  const size = el("select", { id: "export-size", name: "size" },
    ...PRESETS.map(([value, doc]) => el("option", { value, textContent: doc })));
  const typeface = el("select", { id: "export-typeface", name: "typeface" },
    el("option", { value: "", textContent: "as the link says" }));
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
      el("label", {}, "Typeface ", typeface),
      el("label", {}, "Text (pt) ", font)),
    el("div", { className: "export-actions" }, go, data),
    status);
  root.append(details);
  // The worker starts when the panel is first opened, so a download is
  // quick; the page's start-up never fetches it.
  details.addEventListener("toggle", () => {
    if (!details.open) return;
    figs.start();
    const f = field("font");
    if (f && typeface.options.length === 1) f.allowed.forEach((val, i) => typeface.append(new Option(f.labels[i], val)));
  });
  format.addEventListener("change", () => { dpi.disabled = format.value !== "png"; });
  const opts = () => ({ dpi: Number(dpi.value), size: size.value, font: Number(font.value) || 8, typeface: typeface.value });
  const busy = (on, msg) => {
    go.disabled = data.disabled = on;
    status.textContent = msg;
  };
  go.addEventListener("click", () => {
    const fmt = format.value;
    busy(true, "Making the " + fmt.toUpperCase() + "…");
    figs.file(fmt, opts()).then((f) => {
      download(f.name, f.blob);
      busy(false, "Saved " + f.name + " (" + Math.round(f.blob.size / 1024) + " kB, " + Math.round(figs.last.roundMs) + " ms). The link is inside the file.");
    }, (err) => busy(false, String(err.message || err)));
  });
  data.addEventListener("click", () => {
    busy(true, "Collecting the data…");
    figs.file("csv", opts()).then((f) => {
      download(f.name, f.blob);
      busy(false, "Saved " + f.name + ": one CSV file per table, and a README with the link.");
    }, (err) => busy(false, String(err.message || err)));
  });
}

