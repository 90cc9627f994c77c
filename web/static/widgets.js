// The widgets every scene's panel is built from, written once. The plain
// helpers (el, v, setIfIdle, setText, sci, row) need nothing but the
// document; controls(page) builds the ones that read and set the state
// (a number field, a menu of a closed set, the step controls, the view
// buttons; page gives set, state, facts, the canvas's facts now, and
// field, a link key's schema). User text is only ever set
// with textContent, never parsed as HTML.

// el builds an element: props set properties or attributes ("class",
// and "text" through textContent, so user text is never parsed as HTML).
export function el(tag, props, ...children) {
  const e = document.createElement(tag);
  if (props) {
    for (const [k, val] of Object.entries(props)) {
      if (k === "class") e.className = val;
      else if (k === "text") e.textContent = val;
      else if (k in e) e[k] = val;
      else e.setAttribute(k, val);
    }
  }
  for (const c of children) e.append(c);
  return e;
}

// v writes a mathematical variable with an optional subscript.
export function v(name, sub) {
  const e = el("var", { text: name });
  if (sub) e.append(el("sub", { text: sub }));
  return e;
}

// setIfIdle writes value into a field the user is not editing.
export function setIfIdle(input, value) {
  if (document.activeElement !== input && input.value !== String(value)) input.value = String(value);
}

// setText changes an element's text only when it differs (no needless
// mutation for screen readers and layout).
export function setText(e, t) {
  if (e.textContent !== t) e.textContent = t;
}

// sci writes a number in short scientific notation, or a dash.
export function sci(x) {
  return typeof x === "number" && Number.isFinite(x) ? x.toExponential(1).replace("e-", "e−") : "—";
}

// row is one name–value pair of a description list.
export function row(name, value) {
  return [el("dt", { text: name }), el("dd", { text: String(value) })];
}

// controls returns the widgets that read and change the state through
// page: page.state() is the last state read from the canvas, and
// page.set(key, value) sets a link key (and brings the page up to it).
export function controls(page) {
  // numberField builds a labelled integer field for the link key key, with
  // the id prefix+key: the label's text, the variable named variable (if
  // any), the field. A change sets the key. Its min and max come from the
  // link schema on every sync (the page's applyLimits).
  function numberField(prefix, label, key, variable) {
    const input = el("input", { type: "number", step: "1", id: prefix + key, name: key });
    input.addEventListener("change", () => page.set(key, input.value));
    const lab = el("label", null, label, " ");
    if (variable) lab.append(v(variable), " ");
    lab.append(input);
    return { lab, input };
  }

  // choice builds a menu for the link key key, one of a closed set, with
  // the id prefix+key. Its values and their labels are the link schema's
  // (page.field(key): allowed, labels), read at the first sync, when the
  // canvas has answered; sync(value) shows the state's value. A change
  // sets the key.
  function choice(prefix, key) {
    const select = el("select", { id: prefix + key, name: key });
    select.addEventListener("change", () => page.set(key, select.value));
    return {
      select,
      sync(value) {
        if (select.options.length === 0) {
          const f = page.field(key);
          f.allowed.forEach((val, i) => select.append(new Option(f.labels[i], val)));
        }
        select.value = value;
      },
    };
  }

  // stepper builds the step controls of a scene that replays a run (the
  // link's step key): first, previous, play, next, last, a slider and a
  // line of text, with the ids prefix+"first" … prefix+"step-text". It
  // returns them as fieldset, and key (the scene's ←/→/Home/End/Space),
  // stop and sync (after every state change: f.step, f.steps, f.computing;
  // text the line to show).
  function stepper(prefix, scene, playMs) {
    let timer = 0;
    const cur = () => {
      const s = page.state();
      return s && s.scene === scene ? s : null;
    };
    let facts = null;
    const last = () => (facts && typeof facts.steps === "number" ? facts.steps : page.state().step);
    // go reads the canvas's facts as they are now, not as the last sync
    // left them: syncs are throttled (SYNC_EVERY), and a step asked for
    // just after a run finished would otherwise be dropped as "computing".
    const go = (k) => {
      if (!cur()) return;
      facts = page.facts() || facts;
      if (!facts || facts.computing) return;
      const to = Math.max(0, Math.min(last(), k));
      if (to !== page.state().step) page.set("step", to);
    };
    const stop = () => {
      if (!timer) return;
      clearInterval(timer);
      timer = 0;
      els.play.textContent = "▶ play";
      els.play.setAttribute("aria-pressed", "false");
    };
    const play = () => {
      if (!cur()) return;
      if (page.state().view !== "steps") page.set("view", "steps");
      if (page.state().step >= last()) go(0);
      timer = setInterval(() => {
        if (!cur() || page.state().step >= last()) stop();
        else go(page.state().step + 1);
      }, playMs);
      els.play.textContent = "❚❚ pause";
      els.play.setAttribute("aria-pressed", "true");
    };
    const toggle = () => (timer ? stop() : play());
    const btn = (id, text, title, fn) => {
      const b = el("button", { type: "button", id: prefix + id, text, title });
      b.setAttribute("aria-label", title);
      b.addEventListener("click", fn);
      return b;
    };
    const els = {
      first: btn("first", "|◀", "first step (Home)", () => go(0)),
      prev: btn("prev", "◀", "previous step (←)", () => go(page.state().step - 1)),
      play: btn("play", "▶ play", "play / pause (Space)", toggle),
      next: btn("next", "▶", "next step (→)", () => go(page.state().step + 1)),
      last: btn("last", "▶|", "last step (End)", () => go(last())),
      slider: el("input", { type: "range", min: "0", max: "1", step: "1", id: prefix + "step" }),
      text: el("output", { class: "rec-step-text", id: prefix + "step-text" }),
    };
    els.slider.setAttribute("aria-label", "step");
    els.slider.addEventListener("change", () => go(Number(els.slider.value)));
    const fieldset = el("fieldset", { class: "rec-stepper" }, el("legend", { text: "Step" }),
      el("div", { class: "rec-buttons" }, els.first, els.prev, els.play, els.next, els.last),
      els.slider, els.text);
    const keys = { ArrowRight: () => go(page.state().step + 1), ArrowLeft: () => go(page.state().step - 1),
      Home: () => go(0), End: () => go(last()), " ": toggle };
    return {
      fieldset,
      stop,
      key(k) {
        if (!cur() || !keys[k]) return false;
        keys[k]();
        return true;
      },
      sync(f, text) {
        facts = f;
        if (!cur()) stop();
        const busy = !!f.computing;
        els.slider.max = String(f.steps);
        setIfIdle(els.slider, f.step);
        for (const b of [els.first, els.prev, els.next, els.last, els.play, els.slider]) b.disabled = busy;
        els.prev.disabled = els.first.disabled = busy || f.step <= 0;
        els.next.disabled = els.last.disabled = busy || f.step >= f.steps;
        setText(els.text, busy ? "computing…" : text);
      },
    };
  }

  // viewPicker builds the group of buttons that choose a scene's view (the
  // link's view key) from views, a list of [key, name]; sync(view) marks the
  // one shown.
  function viewPicker(views) {
    const group = el("div", { class: "rec-views", role: "group" });
    group.setAttribute("aria-label", "view");
    for (const [key, name] of views) {
      const b = el("button", { type: "button", text: name });
      b.dataset.view = key;
      b.addEventListener("click", () => page.set("view", key));
      group.append(b);
    }
    return {
      group,
      sync(view) {
        for (const b of group.children) b.setAttribute("aria-pressed", b.dataset.view === view ? "true" : "false");
      },
    };
  }

  return { numberField, choice, stepper, viewPicker };
}
