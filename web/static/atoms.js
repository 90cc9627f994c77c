// The Atom explosion scene's panel: the width d, a slider per
// coordinate of the query q, both outputs with their difference, the
// general-fusion controls and the fewer-atoms experiment. The numbers come
// from the canvas (facts); every control changes the state through
// api.set, so every control is in the share link. Text is only ever set
// with textContent.
import { el, v, setIfIdle } from "./widgets.js";

// atoms makes the scene for the page's list of scenes (scenes.js).
export function atoms() {
  const Q_RANGE = 6;
  const COMPACT_FROM = 13; // from this d the sliders are a compact scrolled list

  let api = null;
  let els = null;
  let slidersFor = -1; // the d the sliders were built for
  let pendingQ = null; // the query to send at the next animation frame

  const numberField = (label, key, variable) => api.numberField("atoms-", label, key, variable);

  function build(panel, a) {
    api = a;
    els = {};

    // Width and seed.
    const d = numberField("Width", "d", "d");
    els.d = d.input;
    els.dRange = el("input", { type: "range", min: "1", step: "1", id: "atoms-d-range" });
    els.dRange.setAttribute("aria-label", "width d");
    els.dRange.addEventListener("change", () => api.set("d", els.dRange.value));
    const seed = numberField("Seed", "seed");
    els.seed = seed.input;
    els.limit = el("p", { class: "hint", id: "atoms-limit" });
    const width = el("fieldset", null, el("legend", { text: "Width" }), d.lab, els.dRange, seed.lab, els.limit);

    // The query.
    els.sliders = el("div", { class: "atoms-sliders", id: "atoms-sliders" });
    const reset = el("button", { type: "button", text: "Query from the seed", id: "atoms-q-reset" });
    reset.addEventListener("click", () => api.set("d", api.state().d));
    const zero = el("button", { type: "button", text: "All zero", id: "atoms-q-zero" });
    zero.addEventListener("click", () => api.set("q", new Array(api.state().d).fill(0).join(",")));
    els.qHint = el("p", { class: "hint" });
    const query = el("fieldset", null, el("legend", null, "Query ", v("q")), els.qHint, els.sliders, reset, zero);

    // Outputs.
    els.outSplit = el("output", { class: "atoms-num", id: "atoms-split" });
    els.outFused = el("output", { class: "atoms-num", id: "atoms-fused" });
    els.outDiff = el("output", { class: "atoms-num", id: "atoms-diff" });
    els.outWords = el("p", { class: "hint", id: "atoms-words" });
    els.outCost = el("p", { class: "hint", id: "atoms-cost" });
    els.splitName = el("span");
    els.fusedName = el("span");
    const outputs = el("section", { class: "hideable-outputs", "aria-labelledby": "atoms-out-title" },
      el("h2", { id: "atoms-out-title", text: "Outputs at q" }),
      el("div", { class: "atoms-outputs" },
        els.splitName, els.outSplit,
        els.fusedName, els.outFused,
        el("span", { text: "|fused − split|" }), els.outDiff),
      els.outWords, els.outCost);

    // General fusion.
    const H = numberField("Heads", "H", "H");
    const m = numberField("atoms each", "m", "m");
    els.H = H.input;
    els.m = m.input;
    els.keys = api.choice("atoms-", "keys");
    els.general = el("div", { class: "atoms-general", id: "atoms-general" });
    const general = el("fieldset", null, el("legend", { text: "General fusion" }),
      el("div", { class: "hideable-controls atoms-general-controls" }, H.lab, " ", m.lab, " ", el("label", null, "Keys ", els.keys.select)), els.general);

    // Fewer atoms.
    const k = numberField("Fit up to", "k");
    k.lab.append(" atoms");
    els.k = k.input;
    els.progress = el("progress", { max: 1, value: 0, id: "atoms-progress" });
    els.progressText = el("span", { class: "hint atoms-progress-text" });
    els.fit = el("div", { class: "bars", id: "atoms-fit" });
    els.fitNote = el("p", { class: "hint" });
    const fewer = el("fieldset", null, el("legend", { text: "Fewer atoms — a numerical experiment, not a proof" }),
      el("div", { class: "hideable-controls" }, k.lab), el("div", { class: "atoms-progress" }, els.progress, els.progressText), els.fit, els.fitNote);

    panel.replaceChildren(el("form", { class: "controls hideable-controls", autocomplete: "off" }, width, query), outputs, general, fewer);
    panel.querySelector("form").addEventListener("submit", (e) => e.preventDefault());
  }

  // ---- the query sliders ----

  function buildSliders(d) {
    slidersFor = d;
    els.sliders.replaceChildren();
    els.sliders.classList.toggle("compact", d >= COMPACT_FROM);
    for (let j = 0; j < d; j++) {
      const r = el("input", { type: "range", min: String(-Q_RANGE), max: String(Q_RANGE), step: "0.01" });
      r.dataset.index = String(j);
      r.setAttribute("aria-label", "q" + (j + 1));
      const out = el("output", { class: "atoms-num" });
      r.addEventListener("input", () => {
        out.textContent = Number(r.value).toFixed(2);
        queueQuery(j, Number(r.value));
      });
      r.addEventListener("change", () => queueQuery(j, Number(r.value)));
      const name = el("span", { class: "atoms-qname" }, v("q", String(j + 1)));
      els.sliders.append(el("label", { class: "atoms-slider" }, name, r, out));
    }
  }

  // queueQuery sends at most one query per animation frame: at d = 20 each
  // costs a full evaluation of the 2^20 atoms.
  function queueQuery(j, x) {
    if (!pendingQ) {
      pendingQ = api.state().q.slice();
      requestAnimationFrame(() => {
        const q = pendingQ;
        pendingQ = null;
        api.set("q", q.map((t) => String(t)).join(","));
      });
    }
    pendingQ[j] = x;
  }

  // ---- sync ----

  function fmt(x, digits) {
    return typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "—";
  }

  function fmtCount(x) {
    if (x < 1e9) return Math.round(x).toLocaleString("en-US");
    return x.toExponential(3).replace("e+", "e");
  }

  function fmtNs(ns) {
    if (ns >= 1e6) return (ns / 1e6).toPrecision(3) + " ms";
    if (ns >= 1e3) return (ns / 1e3).toPrecision(3) + " µs";
    return ns.toPrecision(3) + " ns";
  }

  function sync(state, f) {
    if (!els || !f) return;
    for (const key of ["d", "seed", "H", "m", "k"]) setIfIdle(els[key], state[key]);
    els.keys.sync(state.keys);
    const maxD = api.field("d").max; // the scene's widest d (the curve goes on from counts)
    els.dRange.max = String(maxD);
    setIfIdle(els.dRange, state.d);
    els.limit.textContent = f.built
      ? "The fused head is built and evaluated atom by atom (d ≤ " + f.buildLimit + ")."
      : (f.refused || "") + " The curve goes on to d = " + maxD + " from the counts.";

    if (slidersFor !== state.d) buildSliders(state.d);
    els.qHint.textContent = state.d <= 2
      ? "Drag the query on the canvas, or use the sliders (arrow keys move them by 0.01)."
      : "One slider per coordinate (arrow keys move them by 0.01)" + (state.d >= COMPACT_FROM ? "; the list scrolls." : ".");
    for (const label of els.sliders.children) {
      const r = label.children[1];
      const j = Number(r.dataset.index);
      const x = state.q[j];
      if (document.activeElement !== r && !pendingQ) r.value = String(x);
      label.children[2].textContent = fmt(x, 2);
    }

    els.splitName.textContent = "split, " + fmtCount(f.terms) + " head-atom terms";
    els.fusedName.textContent = "fused, " + fmtCount(f.atoms) + " atoms";
    els.outSplit.textContent = fmt(f.split, 15);
    els.outFused.textContent = f.fused === null ? "not built" : fmt(f.fused, 15);
    els.outDiff.textContent = f.difference === null ? "—" : f.difference === 0 ? "0" : f.difference.toExponential(1);
    els.outWords.textContent = "Difference: " + f.agreement + ". Both equal Σ σ(q_j) = " + fmt(f.formula, 15) + ", the expected size of S.";
    if (f.timed) {
      els.outCost.textContent = "Measured here per query: split " + fmtNs(f.splitNs) +
        (typeof f.fusedNs === "number" ? ", fused " + fmtNs(f.fusedNs) + " (" + (f.fusedNs / f.splitNs).toPrecision(3) + "×)" : ", fused not built") +
        ". KV cache: split " + fmtBytes(f.kvBytesSplit) + ", fused " + fmtBytes(f.kvBytesFused) + ".";
    } else {
      els.outCost.textContent = "Measuring the cost per query…";
    }

    syncGeneral(f.general);
    syncFit(state, f);
  }

  function fmtBytes(b) {
    const units = ["B", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let i = 0;
    while (b >= 1000 && i < units.length - 1) {
      b /= 1000;
      i++;
    }
    return (i === 0 ? String(Math.round(b)) : b.toPrecision(3)) + " " + units[i];
  }

  function syncGeneral(g) {
    const lines = [
      "Product bound " + g.m + "^" + g.H + " = " + fmtCount(g.product) + " atoms.",
      g.keys === "shared"
        ? "Shared keys merge to the multisets: C(m+H−1, H) = " + fmtCount(g.shared) + ", polynomial in H."
        : "Random keys: no two tuples share a key, so nothing merges.",
      g.built
        ? "Fused and merged: " + fmtCount(g.merged) + " atoms; largest |fused − Σ heads| on 32 random queries: " + g.error.toExponential(1) + "."
        : g.refused + ".",
    ];
    els.general.replaceChildren(...lines.map((t) => el("p", { class: "hint", text: t })));
  }

  function syncFit(state, f) {
    const fit = f.fit;
    if (!fit || !fit.available) {
      els.progress.hidden = true;
      els.progressText.textContent = fit ? fit.why + " (" + (1 << 4) + " atoms)." : "";
      els.fit.replaceChildren();
      els.fitNote.textContent = "";
      return;
    }
    els.progress.hidden = false;
    const p = typeof f.fitProgress === "number" ? f.fitProgress : 0;
    els.progress.value = p;
    els.progressText.textContent = fit.complete ? "done" : "fitting… " + Math.round(100 * p) + "%";
    const scale = Math.max(1e-12, fit.constantRMS || 0, ...fit.testRMS.filter((x) => typeof x === "number"));
    const rows = fit.ks.map((k, i) => ({ k, e: fit.testRMS[i] }));
    if (els.fit.children.length !== rows.length) {
      els.fit.replaceChildren();
      for (let i = 0; i < rows.length; i++) {
        const bar = el("span", { class: "bar" });
        els.fit.append(el("div", { class: "bar-row atoms-fit-row" },
          el("span", { class: "bar-name" }), el("span", { class: "bar-track" }, bar), el("output", { class: "bar-value" })));
      }
    }
    rows.forEach((r, i) => {
      const row = els.fit.children[i];
      row.children[0].textContent = "k = " + r.k;
      const bar = row.children[1].firstChild;
      const frac = typeof r.e === "number" ? r.e / scale : 0;
      bar.style.left = "0";
      bar.style.width = (100 * frac).toFixed(2) + "%";
      bar.style.background = "var(--accent)";
      row.children[2].textContent = typeof r.e === "number" ? r.e.toExponential(2) : "…";
    });
    els.fitNote.textContent = "Best held-out RMS error of a single head with k < 2^d = " + fit.atoms + " atoms fitting W_" + state.d +
      (typeof fit.constantRMS === "number" ? " (a constant head: " + fit.constantRMS.toExponential(2) + ")" : "") +
      ". " + fit.note;
  }

  return { build, sync };
}
