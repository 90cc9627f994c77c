// The page inside another page: a lecturer's slides, a course page, a
// notebook (README.md, "In slides and course pages"). This module holds the
// embed code the help dialog offers (key ?), and the postMessage API a framing
// page drives the page with. Embed mode itself (the link's embed=1: the
// canvas, its step controls and a link to the full page) is style.css's
// body.embed.
//
// The API. Every message is an object with headlab: 1.
//
//	host → page  {headlab: 1, open: "#v=1&…"}     opens the view, as the link would
//	             {headlab: 1, key: "ArrowRight"}   one of the scene's own keys (KEYS)
//	page → host  {headlab: 1, ready: true, link, step, steps}
//	                                               once ready, then on every change
//	             {headlab: 1, height: px}          the height the page needs at its width
//
// Origins. The page listens to its parent window only (event.source is
// window.parent), from any origin: a message does no more than a link the
// framing page could have put in the iframe's src, and open goes through
// the same parser, limits and notices as any link. No message acts for the
// user: none copies, downloads, opens a window or goes full screen, and a
// key outside KEYS is refused. A message that is not an object with a
// headlab key (other scripts post their own: reveal.js sends strings) is
// ignored; one with a headlab key but a wrong shape, or a string longer
// than MAX_CHARS, is refused with a notice. Messages are handled one an
// animation frame at most, the last open winning over what came before it,
// and at most MAX_QUEUED keys waiting, so a flood cannot hang the page. The page posts to its parent with target origin "*": what it
// says (the view's link, its step) is what the iframe's src already told
// the framing page.

// KEYS are the keys a message may press: the scenes' own step keys.
const KEYS = ["ArrowLeft", "ArrowRight", "Home", "End", " "];
// MAX_CHARS is the longest string a message may carry: longer ones are
// refused before they are read.
const MAX_CHARS = 1 << 20;
// MAX_QUEUED is how many keys may wait for the page; more are refused.
const MAX_QUEUED = 64;
// REPEAT_MS: a refusal repeated within this many ms of the same one is
// not shown again.
const REPEAT_MS = 1000;
// EMBED_SIZE is the embed code's iframe size, in CSS pixels (16:9).
const EMBED_SIZE = { width: 800, height: 450 };
// ASPECT is the canvas's height over its width in embed mode, for the
// height an auto-sized iframe is asked to take; MIN_HEIGHT the least.
const ASPECT = 9 / 16;
const MIN_HEIGHT = 300;

// CANVAS_MIN is the least size, in CSS pixels, the canvas lays its scene
// out for in embed mode: in a smaller frame it is drawn at this size and
// scaled down to fit (fitCanvas), so that nothing in it is cut or overlaps.
const CANVAS_MIN = { width: 560, height: 350 };

// fitCanvas sizes the canvas frame to its stage in embed mode (on), laying
// it out at CANVAS_MIN at least and scaling it down to fit; off, it gives
// the frame back to the style sheet.
export function fitCanvas(frame, stage, on) {
  if (!on) {
    frame.style.removeProperty("width");
    frame.style.removeProperty("height");
    frame.style.removeProperty("transform");
    return;
  }
  const w = stage.clientWidth, h = stage.clientHeight;
  if (!w || !h) return;
  const s = Math.min(1, w / CANVAS_MIN.width, h / CANVAS_MIN.height);
  frame.style.width = w / s + "px";
  frame.style.height = h / s + "px";
  frame.style.transform = s < 1 ? "scale(" + s + ")" : "";
}

// framed reports whether the page is inside another page's frame.
export const framed = window.parent !== window;

// escapeAttr makes s safe inside a double-quoted HTML attribute.
function escapeAttr(s) {
  return String(s).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// embedCode returns the iframe element that embeds url (the page's address
// with the view's link and embed=1), titled title.
export function embedCode(url, title) {
  return '<iframe src="' + escapeAttr(url) + '" width="' + EMBED_SIZE.width + '" height="' + EMBED_SIZE.height +
    '" title="' + escapeAttr(title) + '" loading="lazy" allow="fullscreen; clipboard-write"></iframe>';
}

// embedAPI listens to the framing page's messages and reports to it; page
// gives ready() (the page has drawn), busy() (the scene is computing, and
// takes no step), open(link) (as window.headlab.open), key(k) (presses one
// of KEYS), report() ({link, step, steps} of the view) and notify(msgs). It returns { sync() }, to be
// called after every change of the view. Outside a frame it does nothing.
export function embedAPI(page) {
  if (!framed) return { sync() {} };
  let pendingOpen = null;
  const keys = [];
  let pumping = false;
  let lastReport = "";
  let lastHeight = 0;

  // refuse says why a message was refused; the same refusal again within
  // REPEAT_MS of the last is not said again (a flood says it once).
  let lastRefusal = "";
  let lastRefusalAt = -Infinity;
  const refuse = (why) => {
    const msg = "A message from the page that embeds headlab was refused: " + why + ".";
    const now = performance.now();
    const repeated = msg === lastRefusal && now - lastRefusalAt < REPEAT_MS;
    lastRefusal = msg;
    lastRefusalAt = now;
    if (!repeated) page.notify([msg]);
  };
  const show = (v) => {
    const s = typeof v === "string" ? JSON.stringify(v) : String(v);
    return s.length > 40 ? s.slice(0, 40) + "…" : s;
  };

  window.addEventListener("message", (e) => {
    if (e.source !== window.parent) return; // only the framing page speaks to the page
    const m = e.data;
    if (m === null || typeof m !== "object" || !Object.prototype.hasOwnProperty.call(m, "headlab")) return; // not for headlab
    try {
      handle(m);
    } catch (err) {
      refuse("it could not be read (" + show(err && err.message) + ")");
    }
  });

  function handle(m) {
    if (m.headlab !== 1) return refuse("headlab " + show(m.headlab) + " is not a version this page speaks (1)");
    const has = (k) => Object.prototype.hasOwnProperty.call(m, k);
    if (has("open") === has("key")) return refuse(has("open") ? "it carries both open and key, not one" : "it carries neither open nor key");
    if (has("open")) {
      if (typeof m.open !== "string") return refuse("open must be a link (a string), not " + show(m.open));
      if (m.open.length > MAX_CHARS) return refuse("its link is " + m.open.length + " characters long, more than " + MAX_CHARS);
      pendingOpen = m.open;
      keys.length = 0; // the keys sent before were for the view this one replaces
    } else {
      if (typeof m.key !== "string" || !KEYS.includes(m.key)) return refuse("key " + show(m.key) + " is not one of " + KEYS.map((k) => JSON.stringify(k)).join(", "));
      if (keys.length >= MAX_QUEUED) return refuse("more than " + MAX_QUEUED + " keys are waiting");
      keys.push(m.key);
    }
    pump();
  }

  // pump handles the waiting messages, one an animation frame, once the
  // page is ready: the last open first, then the keys in order, each when
  // the scene is not computing (a step asked for then would be lost).
  function pump() {
    if (pumping) return;
    pumping = true;
    requestAnimationFrame(() => {
      pumping = false;
      if (!page.ready() || (pendingOpen === null && page.busy())) {
        if (pendingOpen !== null || keys.length) setTimeout(pump, 100);
        return;
      }
      if (pendingOpen !== null) {
        const link = pendingOpen;
        pendingOpen = null;
        page.open(link.startsWith("#") ? link : "#" + link);
      } else if (keys.length) {
        page.key(keys.shift());
      }
      if (pendingOpen !== null || keys.length) pump();
    });
  }

  const post = (msg) => window.parent.postMessage({ headlab: 1, ...msg }, "*");

  // sync reports the view, and the height the page needs, when they
  // changed.
  function sync() {
    if (!page.ready()) return;
    const r = page.report();
    const report = { ready: true, link: r.link, step: r.step, steps: r.steps };
    const s = JSON.stringify(report);
    if (s !== lastReport) {
      lastReport = s;
      post(report);
    }
    const height = neededHeight();
    if (height !== lastHeight) {
      lastHeight = height;
      post({ height });
    }
  }

  // neededHeight is the iframe height at which nothing is cut: in embed
  // mode the canvas at ASPECT of the width with its controls below, else
  // the whole page.
  function neededHeight() {
    if (!document.body.classList.contains("embed")) return Math.ceil(document.documentElement.scrollHeight);
    const stage = document.querySelector(".stage");
    const chrome = document.documentElement.clientHeight - (stage ? stage.getBoundingClientRect().height : 0);
    return Math.max(MIN_HEIGHT, Math.ceil(document.documentElement.clientWidth * ASPECT + Math.max(0, chrome)));
  }

  window.addEventListener("resize", () => sync());
  return { sync };
}
