// The Recovery scene's panel: the set-up (H, d, seed, mode,
// noise, H known or a bound H0), the true layer (random or the Attention
// scene's, with a duplicated head or a cancelling pair to show
// canonicalisation), the views, and the step controls: first, previous,
// play/pause, next, last and a slider. Every control changes the state
// through api.set, so every control and the step are in the share link.
// The numbers come from the canvas (facts). Text is only ever set with
// textContent.
import { el, v, setIfIdle, setText, sci, row } from "./widgets.js";
import { replayControl, replayText } from "./replay.js";

// recovery makes the scene for the page's list of scenes (scenes.js).
export function recovery() {
  const NOISE = ["0", "1e-14", "1e-12", "1e-10", "1e-8", "1e-6", "1e-4", "1e-3", "1e-2"];
  // Precisions offered (bits; 0 is float64). A link may name any other in
  // the schema's range, which is then added to the list.
  const PRECISIONS = [0, 128, 192, 256, 384, 512];
  const VIEWS = [
    ["steps", "Step through"],
    ["result", "Result"],
    ["sweep", "Noise sweep"],
    ["modes", "Modes compared"],
  ];
  const PLAY_MS = 450;

  let api = null;
  let els = null;
  let state = null;
  let facts = null;
  let steps = null; // the step controls (api.stepper)

  const numberField = (label, key, variable) => api.numberField("rec-", label, key, variable);

  function build(panel, a) {
    api = a;
    els = {};

    // Step controls.
    steps = api.stepper("rec-", "recovery", PLAY_MS);
    const stepper = steps.fieldset;

    // Views.
    els.views = api.viewPicker(VIEWS);

    // The counter and the result, in words.
    els.counter = el("dl", { class: "rec-counter", id: "rec-counter" });
    els.status = el("p", { class: "rec-status", id: "rec-status" });
    els.recompute = el("button", { type: "button", id: "rec-recompute", hidden: true });
    els.recompute.addEventListener("click", () => {
      if (facts && facts.failed && facts.failed.needPrec) api.set("prec", facts.failed.needPrec);
    });
    els.progress = el("progress", { max: 1, value: 0, id: "rec-progress" });
    els.progress.hidden = true;

    // Set-up.
    const H = numberField("Heads", "H", "H");
    const d = numberField("Width", "d", "d");
    const seed = numberField("Seed", "seed");
    els.H = H.input;
    els.d = d.input;
    els.seed = seed.input;
    const newSeed = el("button", { type: "button", text: "New seed", id: "rec-new-seed" });
    newSeed.addEventListener("click", () => api.set("seed", Math.floor(Math.random() * 1e6)));
    els.mode = api.choice("rec-", "mode");
    els.noise = el("select", { id: "rec-noise", name: "noise" });
    for (const n of NOISE) els.noise.append(new Option(n === "0" ? "exact" : n.replace("-", "−"), n));
    els.noise.addEventListener("change", () => api.set("noise", els.noise.value));
    els.prec = el("select", { id: "rec-prec", name: "prec" });
    for (const b of PRECISIONS) els.prec.append(new Option(b === 0 ? "float64 (fast)" : b + " bits", String(b)));
    els.prec.addEventListener("change", () => api.set("prec", els.prec.value));
    els.known = el("input", { type: "checkbox", id: "rec-known" });
    els.known.addEventListener("change", () => api.set("H0", els.known.checked ? "0" : String(Math.min(api.field("H0").max, state.H + 1))));
    els.H0 = el("input", { type: "number", step: "1", id: "rec-H0", name: "H0" });
    els.H0.setAttribute("aria-label", "upper bound H0");
    els.H0.addEventListener("change", () => api.set("H0", els.H0.value));
    const setup = el("fieldset", null, el("legend", { text: "Set-up" }),
      H.lab, d.lab, seed.lab, newSeed,
      el("label", null, "Mode ", els.mode.select),
      el("label", null, "Oracle accuracy ", v("ε"), " ", els.noise),
      el("label", null, "Precision ", els.prec),
      el("label", null, els.known, " ", v("H"), " known"),
      el("label", null, "else at most ", v("H", "0"), " ", els.H0));

    // The true layer.
    els.src = api.choice("rec-", "src");
    els.dup = el("button", { type: "button", text: "Duplicate a head", id: "rec-dup" });
    els.dup.addEventListener("click", () => api.set("dup", Math.min(state.H, state.dup + 1)));
    els.cancel = el("button", { type: "button", text: "Add a cancelling pair", id: "rec-cancel" });
    els.cancel.addEventListener("click", () => api.set("cancel", state.cancel ? "0" : "1"));
    els.plain = el("button", { type: "button", text: "Plain layer", id: "rec-plain" });
    els.plain.addEventListener("click", () => {
      api.set("dup", 0);
      api.set("cancel", "0");
    });
    els.layerText = el("p", { class: "hint", id: "rec-layer" });
    const layer = el("fieldset", null, el("legend", { text: "True layer" }),
      el("label", null, "Source ", els.src.select), els.dup, els.cancel, els.plain, els.layerText);

    const form = el("form", { class: "controls hideable-controls", autocomplete: "off" }, stepper, setup, layer);
    form.addEventListener("submit", (e) => e.preventDefault());
    const out = el("section", { class: "hideable-outputs", "aria-labelledby": "rec-out-title" },
      el("h2", { id: "rec-out-title", text: "Queries" }), els.counter, els.progress, els.status, els.recompute);
    form.append(replayControl());
    panel.replaceChildren(els.views.group, out, form);
  }

  // ---- sync ----

  function sync(s, f) {
    if (!els || !f) return;
    state = s;
    facts = f;
    for (const key of ["H", "d", "seed"]) setIfIdle(els[key], s[key]);
    els.mode.sync(s.mode);
    const n = NOISE.find((x) => Number(x) === s.noise);
    if (n === undefined) {
      const o = new Option(String(s.noise), String(s.noise));
      els.noise.append(o);
      els.noise.value = String(s.noise);
    } else {
      els.noise.value = n;
    }
    if (![...els.prec.options].some((o) => Number(o.value) === s.prec)) els.prec.append(new Option(s.prec + " bits", String(s.prec)));
    els.prec.value = String(s.prec);
    els.known.checked = s.H0 === 0;
    els.H0.disabled = s.H0 === 0;
    els.H0.min = String(s.H);
    setIfIdle(els.H0, s.H0 === 0 ? s.H : s.H0);
    els.src.sync(s.src);
    els.dup.disabled = s.dup >= s.H;
    els.cancel.setAttribute("aria-pressed", s.cancel ? "true" : "false");
    els.cancel.textContent = s.cancel ? "Remove the cancelling pair" : "Add a cancelling pair";
    els.plain.disabled = s.dup === 0 && !s.cancel;
    const parts = [s.H + " head" + (s.H === 1 ? "" : "s")];
    if (s.dup > 0) parts.push(s.dup + " duplicated (same W, v split in halves)");
    if (s.cancel) parts.push("a pair with one W and opposite v");
    setText(els.layerText, "True layer: " + parts.join(", ") + " — " + f.trueHeads + " heads in all, " +
      f.canonical + " canonical. Only the canonical form can be recovered from queries, and it is what the learner finds.");
    const replaying = replayText(f);
    if (replaying) setText(els.layerText, replaying);

    els.views.sync(s.view);

    const busy = !!f.computing;
    steps.sync(f, "step " + f.step + " of " + f.steps + (f.rf ? " · " + f.rf.name : ""));

    const bias = f.biases ? f.biases.queries : 0;
    // Stepping counts the queries up to the step shown; the other views
    // show the whole run, so they count all of its queries (once it has
    // run: runQueries and runMaxLength are the whole run's).
    const stepping = s.view === "steps" || typeof f.runMaxLength !== "number";
    const used = stepping ? f.queries : f.runQueries;
    const longest = stepping ? f.maxLength : f.runMaxLength;
    const counter = [used, f.steps, f.bound, f.economy, f.frugal, f.information, longest, f.lengthBound, bias].join(",");
    if (counter !== els.counterKey) {
      els.counterKey = counter;
      els.counter.replaceChildren(
        ...row("queries used", used + " of " + f.steps),
        ...row("the paper's 4Hd² − 2H + 1", f.bound),
        ...row("economy 2H(d² + d − 1) + 1", f.economy),
        ...row("frugal 2H(2d−1)+1+(H+1)(d²−d)", f.frugal),
        ...row("information bound H(d² + d)", f.information),
        ...(bias ? row("biases c_h, C: F(0) and a column on −z_1", "+" + bias) : []),
        ...row("longest query", longest + " of 2H + 1 = " + f.lengthBound));
    }

    const prog = typeof f.progress === "number" ? f.progress : s.view === "sweep" && f.sweep ? f.sweep.progress : null;
    els.progress.hidden = prog === null || prog >= 1;
    if (prog !== null) els.progress.value = prog;

    let msg;
    if (busy) msg = "Computing the run once; every step after that is instant.";
    else if (f.failed && f.failed.needPrec) msg = "float64 cannot resolve this run (H = " + f.heads + ", d = " + s.d + "): " + f.failed.message;
    else if (f.failed) msg = "The run could not be resolved: " + f.failed.message;
    else if (typeof f.error === "number") msg = "Recovered " + f.found + " canonical head" + (f.found === 1 ? "" : "s") + "; largest relative error " + (f.error === 0 ? "0: every entry equals the truth's to float64's last bit" : sci(f.error)) + "." +
      (f.biases && typeof f.biases.error === "number" ? " Biases c_h and C: largest error " + sci(f.biases.error) + "." : "");
    else if (replaying && f.recovered) msg = "Recovered " + f.recovered.length + " head" + (f.recovered.length === 1 ? "" : "s") + " from the log's answers.";
    else msg = "Step to the end (End) to see the recovered heads.";
    if (s.view === "sweep" && f.sweep && f.sweep.refused) msg = f.sweep.refused;
    setText(els.status, msg);
    const offer = !busy && f.failed && f.failed.needPrec;
    els.recompute.hidden = !offer;
    if (offer) setText(els.recompute, "Recompute with " + f.failed.needPrec + " bits");
  }

  return { build, sync, key: (k) => steps.key(k) };
}
