// The Transformer scene's panel: the set-up (H, d, m, K, seed, phase A's
// schedule, the residual and readout variants, the working precision),
// the views (steps, result), and the step controls: first, previous,
// play/pause, next, last and a slider. Every control changes the state
// through api.set, so every control and the step are in the share link.
// The numbers come from the canvas (facts); the run itself happens in the
// compute worker. Text is only ever set with textContent.
import { el, v, setIfIdle, setText, sci, row } from "./widgets.js";

// transformer makes the scene for the page's list of scenes (scenes.js).
export function transformer() {
  const VIEWS = [
    ["steps", "Step through"],
    ["result", "Result"],
  ];
  // Working precisions offered, in bits; 0 is the scene's default (192).
  const PRECS = [
    ["0", "192 (default)"],
    ["96", "96 (too few)"],
    ["128", "128"],
    ["256", "256"],
    ["512", "512"],
  ];
  const PLAY_MS = 300;

  let api = null;
  let els = null;
  let state = null;
  let facts = null;
  let steps = null; // the step controls (api.stepper)

  const numberField = (label, key, variable) => api.numberField("tf-", label, key, variable);

  function build(panel, a) {
    api = a;
    els = {};
    steps = api.stepper("tf-", "transformer", PLAY_MS);
    const stepper = steps.fieldset;

    // Views.
    els.views = api.viewPicker(VIEWS);

    els.counter = el("dl", { class: "rec-counter", id: "tf-counter" });
    els.status = el("p", { class: "rec-status", id: "tf-status" });
    els.progress = el("progress", { max: 1, value: 0, id: "tf-progress" });
    els.progress.hidden = true;

    // Set-up; the ranges come from the link's schema for this scene.
    const H = numberField("Heads", "H", "H");
    const d = numberField("Width", "d", "d");
    const m = numberField("Output width", "m", "m");
    const K = numberField("Units", "K", "K");
    const seed = numberField("Seed", "seed");
    Object.assign(els, { H: H.input, d: d.input, m: m.input, K: K.input, seed: seed.input });
    const newSeed = el("button", { type: "button", text: "New seed", id: "tf-new-seed" });
    newSeed.addEventListener("click", () => api.set("seed", Math.floor(Math.random() * 1e6)));
    els.mode = api.choice("tf-", "mode");
    els.resid = el("input", { type: "checkbox", id: "tf-resid" });
    els.resid.addEventListener("change", () => api.set("resid", els.resid.checked ? "1" : "0"));
    els.readout = el("input", { type: "checkbox", id: "tf-readout" });
    els.readout.addEventListener("change", () => api.set("readout", els.readout.checked ? "1" : "0"));
    els.prec = el("select", { id: "tf-prec", name: "prec" });
    for (const [val, name] of PRECS) els.prec.append(new Option(name, val));
    els.prec.addEventListener("change", () => api.set("prec", els.prec.value));
    const setup = el("fieldset", null, el("legend", { text: "Set-up" }),
      H.lab, d.lab, m.lab, K.lab, seed.lab, newSeed,
      el("label", null, "Phase A schedule ", els.mode.select),
      el("label", null, els.resid, " residual ", v("y"), " + ", v("x", "N"), " (", v("m"), " = ", v("d"), ")"),
      el("label", null, els.readout, " linear readout + ", v("w"), "ᵀ", v("y")),
      el("label", null, "Precision, bits ", els.prec));

    const form = el("form", { class: "controls hideable-controls", autocomplete: "off" }, stepper, setup);
    form.addEventListener("submit", (e) => e.preventDefault());
    const out = el("section", { class: "hideable-outputs", "aria-labelledby": "tf-out-title" },
      el("h2", { id: "tf-out-title", text: "Queries" }), els.counter, els.progress, els.status);
    panel.replaceChildren(els.views.group, out, form);
  }

  // ---- sync ----

  function sync(s, f) {
    if (!els || !f) return;
    state = s;
    facts = f;
    for (const k of ["H", "d", "m", "K", "seed"]) setIfIdle(els[k], s[k]);
    els.m.disabled = s.resid;
    els.mode.sync(s.mode);
    els.resid.checked = s.resid;
    els.readout.checked = s.readout;
    const p = PRECS.find(([val]) => Number(val) === s.prec);
    if (!p) {
      els.prec.append(new Option(s.prec + " bits", String(s.prec)));
    }
    els.prec.value = String(s.prec);
    els.views.sync(s.view);

    const busy = !!f.computing;
    const where = f.phase === "heads" ? " · phase A" : f.phase === "units" ? " · phase B" : "";
    steps.sync(f, "step " + f.step + " of " + f.steps + where + (f.kind ? " · " + f.kind : ""));

    const counter = [f.queries, f.headQueries, f.unitQueries, f.headBound, f.idealUnits, f.units, f.trueUnits, f.maxLength].join(",");
    if (counter !== els.counterKey) {
      els.counterKey = counter;
      els.counter.replaceChildren(
        ...row("queries used", f.queries),
        ...row("for the heads (phase A)", f.headQueries + " of 2·schedule = " + f.headBound),
        ...row("for the units (phase B)", f.unitQueries + " (ideal (K + 1)(Hd + 1) = " + f.idealUnits + ")"),
        ...row("units identified", f.units + " of K = " + f.trueUnits),
        ...row("longest query", (f.maxLength === undefined ? "—" : f.maxLength) + " of 2H + 1 = " + f.lengthBound));
    }
    const prog = typeof f.progress === "number" ? f.progress : null;
    els.progress.hidden = prog === null || prog >= 1;
    if (prog !== null) els.progress.value = prog;

    let msg;
    if (busy) msg = "Computing the run in the compute worker; every step after that is instant.";
    else if (f.failed) msg = (f.failed.condition ? "Condition " + f.failed.condition + " fails; no network is returned: " : "The run stopped: ") + f.failed.message;
    else if (typeof f.error === "number") msg = "Recovered " + f.foundUnits + " unit" + (f.foundUnits === 1 ? "" : "s") + (f.equivalent ? ", equivalent to the truth" : ", NOT equivalent to the truth") + "; largest held-out |ΔF| " + sci(f.error) + " relative.";
    else msg = "Step to the end (End) or open the result to compare with the true network.";
    setText(els.status, msg);
  }

  return { build, sync, key: (k) => steps.key(k) };
}
