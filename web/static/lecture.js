// Lecture use: the keyboard, presentation mode, full screen, the text
// size, the help dialog with its list of shortcuts, and the link for a
// class (this view with chosen panels hidden). lecture(page) returns
// { key(e) (true when the key was taken), sync() (after every state
// change) }, and binds the buttons and the dialog.

const $ = (id) => document.getElementById(id);

// The keys the help dialog lists, as key below and the scenes' own key
// handlers take them.
const SHORTCUTS = [
  ["← →", "previous / next step (recovery, transformer), or of the tour"],
  ["Space", "play / pause (recovery)"],
  ["Home End", "first / last step (recovery)"],
  ["f", "full screen"],
  ["p", "presentation mode, full screen"],
  ["+ −", "larger / smaller text"],
  ["t", "light / dark theme"],
  ["q", "this view's link as a QR code"],
  ["?", "this list"],
];
const TEXT_SIZE = { initial: 16, min: 12, max: 32, step: 2 }; // px

// lecture binds the page's lecture controls; page gives state(),
// landing(), fields() (the link schema by key), set(key, value),
// notify(msgs), sceneKey(k) (the current scene's own keys), stepTour(dir),
// toggleQR(), leaveLanding(link), linkWith(overrides) (the canvas's link
// with some keys changed), copy(text, what, done) and embedCode() (the
// iframe that embeds this view).
export function lecture(page) {
  let textSize = TEXT_SIZE.initial;

  // key handles a key pressed in the page or forwarded from the canvas;
  // it returns whether the key was used. Keys typed into a field are never
  // taken, nor keys with a modifier (the browser's own shortcuts).
  function key(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const t = e.target;
    if (t && t.nodeType === 1 && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return false;
    if (t && t.nodeType === 1 && t.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return false;
    if ($("help").open && e.key !== "?") return false;
    if ($("qr").open && (e.key === "Enter" || e.key === " ")) return false; // the dialog's Close button
    const landing = page.landing();
    if (!landing && page.state() && page.sceneKey(e.key)) return true;
    switch (e.key) {
      case "ArrowLeft":
        return page.stepTour(-1);
      case "ArrowRight":
        return page.stepTour(1);
      case "f":
        toggleFullscreen();
        return true;
      case "p":
        if (landing) return false;
        togglePresent();
        return true;
      case "+":
      case "=":
        setTextSize(textSize + TEXT_SIZE.step);
        return true;
      case "-":
      case "_":
        setTextSize(textSize - TEXT_SIZE.step);
        return true;
      case "t": {
        const dark = document.documentElement.dataset.theme === "dark";
        page.set("theme", dark ? "light" : "dark");
        return true;
      }
      case "?":
        toggleHelp();
        return true;
      case "q":
        if (landing) return false;
        page.toggleQR();
        return true;
    }
    return false;
  }

  // togglePresent switches presentation mode, and with it full screen: a
  // key or a click may ask for it, a link cannot (the browser needs a
  // gesture), so a presentation link fills the window and f the screen.
  function togglePresent() {
    const state = page.state();
    const on = !(state && state.present);
    page.set("present", on ? "1" : "0");
    if (on !== !!document.fullscreenElement) toggleFullscreen();
  }

  function toggleFullscreen() {
    if (document.fullscreenElement) {
      document.exitFullscreen().catch(() => {});
    } else if (document.fullscreenEnabled === false && window.parent !== window) {
      page.notify(["Full screen is not allowed in this frame: the page that embeds headlab did not give its iframe " +
        'allow="fullscreen". Open headlab in a tab of its own for full screen.']);
    } else if (document.documentElement.requestFullscreen) {
      document.documentElement.requestFullscreen().catch((err) => page.notify(["full screen was refused: " + err.message]));
    }
  }

  function setTextSize(px) {
    textSize = Math.max(TEXT_SIZE.min, Math.min(TEXT_SIZE.max, px));
    document.documentElement.style.setProperty("--text", textSize + "px");
  }

  function toggleHelp() {
    const d = $("help");
    if (d.open) d.close();
    else {
      updateClassLink();
      d.showModal();
    }
  }

  // sync lists the panels a class link can hide, as the link schema names
  // them (once the canvas, which holds the schema, is there).
  function sync() {
    const box = $("class-panels");
    if (box.children.length) return;
    for (const p of page.fields().hide.allowed) {
      const label = document.createElement("label");
      const cb = document.createElement("input");
      cb.type = "checkbox";
      cb.checked = true;
      cb.dataset.panel = p;
      cb.addEventListener("change", updateClassLink);
      label.append(cb, " " + p);
      box.append(label);
    }
  }

  // updateClassLink writes the link for students: this view, with the
  // unticked panels hidden and presentation mode if asked.
  function updateClassLink() {
    const hidden = [...$("class-panels").querySelectorAll("input")].filter((c) => !c.checked).map((c) => c.dataset.panel);
    const link = page.linkWith({ hide: hidden.join(","), present: $("class-present").checked ? "1" : "0" });
    if (link !== null) $("class-url").value = location.href.split("#")[0] + link;
    $("embed-code").value = page.embedCode();
  }

  const dl = $("shortcuts");
  for (const [k, what] of SHORTCUTS) {
    const dt = document.createElement("dt");
    for (const part of k.split(" ")) {
      const kbd = document.createElement("kbd");
      kbd.textContent = part;
      dt.append(kbd, " ");
    }
    const dd = document.createElement("dd");
    dd.textContent = what;
    dl.append(dt, dd);
  }
  $("class-present").addEventListener("change", updateClassLink);
  $("class-copy").addEventListener("click", () => page.copy($("class-url").value, "link", () => $("class-url").select()));
  $("embed-copy").addEventListener("click", () => {
    const b = $("embed-copy");
    page.copy($("embed-code").value, "embed code", () => {
      b.textContent = "Copied ✓";
      setTimeout(() => (b.textContent = "Copy"), 1500);
    });
  });
  $("help-open").addEventListener("click", toggleHelp);
  const scene = () => (page.state() ? page.state().scene : "attention");
  $("qr-open").addEventListener("click", () => {
    if (page.landing()) page.leaveLanding("#v=1&scene=" + scene());
    page.toggleQR();
  });
  $("present").addEventListener("click", () => {
    if (page.landing()) page.leaveLanding("#v=1&scene=" + scene() + "&present=1");
    else togglePresent();
  });
  document.addEventListener("keydown", (e) => {
    if (key(e)) e.preventDefault();
  });

  return { key, sync };
}
