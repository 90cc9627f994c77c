// Guided tours: a few steps per scene (static/tours.json), each step a
// link. tours(page) returns the tour box's controller: load() fetches the
// steps, sync(link) shows the step the state names (link: the view shown),
// step(dir) follows the previous (-1) or next (+1) step's link.
import { el } from "./widgets.js";

const $ = (id) => document.getElementById(id);

// tourView is a link without the keys that change how, not what, it shows.
function tourView(link) {
  return link.replace(/&(theme|present|hide)=[^&]*/g, "");
}

// tourLink makes a a link to href, or, with no href, a disabled one.
function tourLink(a, href) {
  if (href) {
    a.href = href;
    a.removeAttribute("aria-disabled");
  } else {
    a.removeAttribute("href");
    a.setAttribute("aria-disabled", "true");
  }
}

// tours makes the controller; page gives state() (the last state),
// landing() (the chooser is shown), set(key, value), notify(msgs),
// sceneName(key) and resync() (bring the page up to the state again).
export function tours(page) {
  let steps = null; // static/tours.json once loaded: { scene: [{title, link, text}] }
  let at = {}; // the tour step shown and the view it opened: { scene, step, view }

  function load() {
    fetch("static/tours.json")
      .then((r) => {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      })
      .then((t) => {
        steps = t;
        if (page.state()) page.resync();
      })
      .catch((err) => page.notify(["the guided tours could not be loaded: " + err.message]));
    $("tour-end").addEventListener("click", () => page.set("tour", "0"));
  }

  function sync(link) {
    const state = page.state();
    const box = $("tour");
    const list = steps && steps[state.scene];
    if (page.landing() || !state.tour || !list) {
      box.hidden = true;
      return;
    }
    if (state.tour > list.length) {
      box.hidden = true;
      page.notify(["tour: the " + page.sceneName(state.scene) + " tour has " + list.length + " steps; there is no step " + state.tour]);
      page.set("tour", "0");
      return;
    }
    const k = state.tour;
    const step = list[k - 1];
    // The view this step opened, to tell when the user has moved on from it.
    const here = tourView(link);
    if (at.scene !== state.scene || at.step !== k) at = { scene: state.scene, step: k, view: here };
    $("tour-moved").hidden = here === at.view;
    $("tour-back").href = step.link;
    box.hidden = false;
    $("tour-count").textContent = "Tour of " + page.sceneName(state.scene) + " · step " + k + " of " + list.length;
    $("tour-title").textContent = step.title;
    $("tour-text").textContent = step.text;
    tourLink($("tour-prev"), k > 1 ? list[k - 2].link : "");
    tourLink($("tour-next"), k < list.length ? list[k].link : "");
    const ol = $("tour-steps");
    if (ol.children.length !== list.length || ol.dataset.scene !== state.scene) {
      ol.replaceChildren();
      ol.dataset.scene = state.scene;
      list.forEach((st, i) => {
        const a = el("a", { href: st.link, text: String(i + 1), title: st.title });
        a.setAttribute("aria-label", "step " + (i + 1) + ": " + st.title);
        ol.append(el("li", null, a));
      });
    }
    [...ol.querySelectorAll("a")].forEach((a, i) => {
      if (i === k - 1) a.setAttribute("aria-current", "step");
      else a.removeAttribute("aria-current");
    });
  }

  function step(dir) {
    const a = $(dir < 0 ? "tour-prev" : "tour-next");
    if ($("tour").hidden || !a.hasAttribute("href")) return false;
    location.hash = a.getAttribute("href");
    return true;
  }

  return { load, sync, step };
}
