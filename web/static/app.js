// headlab's host page, the entry module: the scenes' panels, the share link
// in the URL fragment, and window.headlab, the page's test contract
// (README.md, "Links"). The numbers and the drawing
// live in the canvas iframe (Go compiled to WebAssembly); this page only
// moves strings between the controls, the URL and the canvas's bridge,
// window.headlabCanvas. User text is only ever set with textContent or
// input values, never parsed as HTML.
//
// The modules: scenes.js lists the scenes (one module each), widgets.js
// builds their controls, figures.js makes figures and the Export panel,
// tours.js the guided tours, lecture.js the keyboard, presentation mode and
// class links, qr.js the QR code, embed.js the embed code and the
// postMessage API of a page inside another, palette.js the head colours.
// Two globals cross the frame: window.headlabHost (this page's, called by the canvas,
// static/canvas.js and wasm/canvas) and the canvas's window.headlabCanvas.
import { SCENES } from "./scenes.js";
import { controls, el } from "./widgets.js";
import { figures, exportPanel } from "./figures.js";
import { tours as makeTours } from "./tours.js";
import { lecture as makeLecture } from "./lecture.js";
import { qrSVG, localWarning } from "./qr.js";
import { embedAPI, embedCode, fitCanvas, framed } from "./embed.js";

const $ = (id) => document.getElementById(id);
const MAX_ERRORS = 50;
// A change the canvas makes (a drag) reaches the page at most every
// SYNC_EVERY ms (queueSync).
const SYNC_EVERY = 125;

function start() {
  const frame = $("canvas");
  const TITLE = document.title;

  let canvas = null; // the iframe's window.headlabCanvas once loaded
  let state = null; // the last state read from the canvas
  let fields = null; // the link schema by key, with the ranges that hold in state
  let landing = false; // the chooser of scenes is shown instead of a scene

  // The run log the page replays, kept for the figures worker while the
  // scene says it replays that file.
  let replayed = null;
  const currentRun = () => {
    const f = replayed && headlab.facts();
    return f && f.replay && f.replay.name === replayed.name ? replayed : null;
  };
  const figs = figures(() => headlab.link(), currentRun);
  const headlab = {
    ready: false,
    errors: [],
    version: 1,
    state: () => (canvas ? JSON.parse(canvas.state()) : null),
    link: () => (canvas ? canvas.link() : location.hash),
    facts: () => (canvas ? JSON.parse(canvas.facts()) : null),
    // The link schema, a field per key: its kind, doc, default, the range
    // that holds in the state (min, max), and allowed values with labels.
    fields: () => (canvas ? JSON.parse(canvas.fields()) : null),
    open: (link) => {
      if (!canvas) throw new Error("headlab: the canvas is not loaded yet");
      showLanding(false);
      const notes = JSON.parse(canvas.open(String(link)));
      showNotices(notes);
      sync();
      return notes;
    },
    // openRun replays a run log (a Uint8Array) in the Recovery scene.
    openRun: (name, bytes) => {
      if (!canvas) throw new Error("headlab: the canvas is not loaded yet");
      showLanding(false);
      // The bytes cross into the canvas's realm, where Go reads them.
      const notes = JSON.parse(canvas.openRun(String(name), new frame.contentWindow.Uint8Array(bytes)));
      const f = headlab.facts();
      if (f && f.replay && f.replay.name === String(name)) replayed = { name: String(name), bytes: new Uint8Array(bytes) };
      showNotices(notes);
      sync();
      return notes;
    },
    figure: (fmt, opts) => figs.figure(fmt, opts),
    figures: figs,
    fps: () => (canvas ? canvas.fps() : 0),
  };
  window.headlab = headlab;

  // The canvas calls these; each defers its work so that no JavaScript
  // re-enters Go while Go is calling out.
  window.headlabHost = {
    loaded: () => setTimeout(onLoaded, 0),
    changed: () => queueSync(),
    drawn: () => setTimeout(() => {
      headlab.ready = true;
      document.body.classList.add("ready");
      $("loading").hidden = true;
      keepOffline();
      embed.sync();
    }, 0),
    error: (msg) => setTimeout(() => showNotices([String(msg)]), 0),
    noCanvas: (msg) => setTimeout(() => startFallback(String(msg)), 0),
    notice: (msg) => setTimeout(() => showNotices([String(msg)]), 0),
    key: (e) => lecture.key(e),
  };

  function onLoaded() {
    canvas = frame.contentWindow.headlabCanvas;
    applyTheme();
    // A page opened without a link shows the chooser of scenes; the canvas
    // loads the first scene behind it, so that choosing one is instant.
    showLanding(isLandingHash());
    const notes = JSON.parse(canvas.open(landing ? "#v=1&scene=attention" : location.hash));
    showNotices(notes);
    sync();
  }

  // queueSync brings the page up to a change the canvas made (a drag), at
  // the next frame but at most every SYNC_EVERY ms: while a token is
  // dragged the canvas redraws every frame, and re-rendering the panel and
  // rewriting the address bar as often would halve the canvas's frame rate
  // (measured by BenchmarkDragFPS). The last change is always synced.
  let syncQueued = false;
  let lastSync = -Infinity;
  function queueSync() {
    if (syncQueued) return;
    syncQueued = true;
    const run = () =>
      requestAnimationFrame(() => {
        syncQueued = false;
        sync();
      });
    const wait = lastSync + SYNC_EVERY - performance.now();
    if (wait > 0) setTimeout(run, wait);
    else run();
  }

  // sync brings the URL, the controls and the outputs up to the canvas's state.
  function sync() {
    if (!canvas) return;
    lastSync = performance.now();
    state = JSON.parse(canvas.state());
    fields = Object.fromEntries(JSON.parse(canvas.fields()).map((f) => [f.key, f]));
    applyLimits();
    lecture.sync();
    const link = canvas.link();
    if (!landing && location.hash !== link) history.replaceState(null, "", link);
    for (const e of document.querySelectorAll("[data-scene]")) e.hidden = landing || e.dataset.scene !== state.scene;
    $("theme").value = state.theme;
    for (const b of $("scenes").children) {
      if (!landing && b.dataset.target === state.scene) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    }
    const scene = scenes.get(state.scene);
    if (scene) scene.sync(state, JSON.parse(canvas.facts()));
    tours.sync(link);
    $("canvas-alt").textContent = canvas.describe();
    document.title = landing ? TITLE : sceneName(state.scene) + " · " + TITLE;
    applyTheme();
    document.body.classList.toggle("present", !landing && !!state.present);
    const embedded = !landing && !!state.embed;
    if (embedded !== document.body.classList.contains("embed")) {
      document.body.classList.toggle("embed", embedded);
      fitCanvas(frame, frame.parentElement, embedded);
    }
    delete document.documentElement.dataset.embed;
    if (state.embed) $("embed-open").href = location.href.split("#")[0] + canvas.linkWith(JSON.stringify({ embed: "0" }));
    $("present").setAttribute("aria-pressed", !landing && state.present ? "true" : "false");
    for (const p of fields.hide.allowed) document.body.classList.toggle("hide-" + p, !landing && state.hide.includes(p));
    document.body.classList.add("synced"); // the panels show (style.css)
    drawFallback();
    if ($("qr").open) drawQR();
    embed.sync();
  }

  // applyLimits gives every number field named for a link key the range
  // the schema allows in the current state: the limits live in web/link
  // alone, and the page reads them from there.
  function applyLimits() {
    for (const input of document.querySelectorAll("input[type=number][name]")) {
      const f = fields[input.name];
      if (!f || (f.kind !== "int" && f.kind !== "float")) continue;
      input.min = String(f.min);
      input.max = String(f.max);
    }
  }

  function set(key, value) {
    if (!canvas) return;
    const notes = JSON.parse(canvas.set(key, String(value)));
    showNotices(notes);
    sync();
  }

  // ---- notices ----
  function showNotices(notes) {
    if (!notes || notes.length === 0) return;
    const list = $("notice-list");
    for (const n of notes) {
      const msg = String(n);
      headlab.errors.push(msg);
      const li = document.createElement("li");
      li.textContent = msg;
      list.prepend(li);
    }
    while (headlab.errors.length > MAX_ERRORS) headlab.errors.shift();
    while (list.children.length > MAX_ERRORS) list.lastChild.remove();
    $("notices").hidden = false;
  }

  // ---- the link as a QR code, for a room to scan ----
  // The code holds the whole address, and follows the state while the
  // dialog is open.
  let qrShown = "";

  function toggleQR() {
    const d = $("qr");
    if (d.open) {
      d.close();
      return;
    }
    qrShown = "";
    drawQR();
    d.showModal();
  }

  function drawQR() {
    if (!canvas) return;
    const url = location.href.split("#")[0] + canvas.link(); // the address that opens this view
    if (url === qrShown) return;
    qrShown = url;
    const code = JSON.parse(canvas.qr(url));
    $("qr-code").replaceChildren(code.error
      ? el("p", { text: "This link is too long for a QR code (" + code.error + "); copy it instead." })
      : qrSVG(code, url));
    $("qr-url").textContent = url.replace(/^https?:\/\//, "");
    const warn = localWarning(location.hostname);
    $("qr-warn").hidden = warn === "";
    $("qr-warn").textContent = warn;
  }

  // ---- offline after the first visit: the service worker (sw.js) ----
  // Registered once the page is ready, so that saving the site's files
  // does not compete with the first load. A new build's service worker
  // takes over an open page (controllerchange): the page says so. The
  // worker answers "build" with its build and whether this page was
  // loaded from its saved copy (no network).
  // The listener is there from the start: a new build's worker can take
  // over before the page is ready.
  const offline = "serviceWorker" in navigator && window.isSecureContext;
  if (offline && navigator.serviceWorker.controller) {
    navigator.serviceWorker.addEventListener("controllerchange", () =>
      showNotices(["A new version of headlab was deployed and is now saved in this browser for use offline; " +
        "reload the page if anything looks out of date."]));
  }
  let offlineAsked = false;
  function keepOffline() {
    if (offlineAsked) return;
    offlineAsked = true;
    if (!offline) {
      // A secure page framed by another site may be given no service
      // worker at all (storage blocked for third parties): say so there.
      if (framed && window.isSecureContext) showNotices(["This embedded view cannot be kept for use offline: the browser " +
        "gives no service worker to a page framed by another site. Open headlab in a tab of its own to keep it offline."]);
      return;
    }
    navigator.serviceWorker.register("sw.js").catch((err) => {
      const why = String(err && err.message || err);
      // In another site's frame the browser keeps the page's storage
      // apart from the site's own (partitioned), or refuses it: say so.
      if (framed) showNotices(["This embedded view cannot be kept for use offline: the browser does not let a page " +
        "framed by another site save its files (" + why + "). Open headlab in a tab of its own to keep it offline."]);
      else console.warn("headlab: no offline copy:", why);
    });
  }

  // ---- without WebGL: the static figure in the canvas's place ----
  // The canvas program tells the host (noCanvas) when the browser has no
  // WebGL 2 for ebiten; it keeps serving the bridge, so the link, the
  // panels and the facts work, and the figures worker, which needs no
  // WebGL, draws the current view as SVG here, following the state.
  let fallback = null; // { box, img, shown: the link drawn, busy, url }

  function startFallback(msg) {
    if (fallback) return;
    showNotices([msg]);
    const img = el("img", { id: "fallback-figure", class: "fallback-figure", alt: "" });
    const box = el("figure", { id: "canvas-fallback", class: "canvas-fallback" },
      el("p", { class: "fallback-message", role: "alert", text: msg }), img);
    frame.hidden = true;
    $("loading").hidden = true;
    frame.after(box);
    fallback = { box, img, shown: "", busy: false, url: "" };
    drawFallback();
  }

  // drawFallback draws the figure of the current link unless it is shown
  // or being drawn (a newer link is drawn when that one is done). The SVG
  // is shown through an <img>, which runs no script in it. The first
  // figure shown makes the page ready.
  function drawFallback() {
    if (!fallback || fallback.busy || landing || !canvas) return;
    const link = canvas.link();
    if (link === fallback.shown) return;
    fallback.busy = true;
    const img = fallback.img;
    figs.figure("svg", { link, size: "two" })
      .then((svg) => {
        const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
        img.src = url;
        return img.decode().then(() => {
          if (fallback.url) URL.revokeObjectURL(fallback.url);
          fallback.url = url;
          img.alt = "Static figure of this view. " + canvas.describe();
          img.dataset.link = link;
        });
      })
      .catch((err) => showNotices(["the static figure could not be drawn: " + (err && err.message ? err.message : err)]))
      .finally(() => {
        fallback.shown = link;
        fallback.busy = false;
        if (!headlab.ready) {
          headlab.ready = true;
          document.body.classList.add("ready");
          keepOffline();
        }
        drawFallback();
      });
  }

  // ---- the scene switcher, the chooser and the address bar ----
  function buildSwitcher() {
    const nav = $("scenes");
    for (const s of SCENES) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = s.name;
      b.dataset.target = s.key;
      b.addEventListener("click", () => {
        if (landing) {
          if (canvas) leaveLanding("#v=1&scene=" + s.key);
          return;
        }
        if (state && state.tour) set("tour", "0"); // a tour belongs to its scene
        set("scene", s.key);
      });
      nav.append(b);
    }
  }

  // route follows the address bar after a link was followed or the user
  // went back or forward: no fragment is the chooser, any other opens it.
  function route() {
    if (!canvas) {
      showLinked(); // the canvas opens location.hash once it loads
      return;
    }
    if (isLandingHash()) {
      showLanding(true);
      sync();
    } else if (landing) {
      leaveLanding(location.hash, true);
    } else if (location.hash !== canvas.link()) {
      headlab.open(location.hash);
    }
  }

  // showLinked shows the view the address bar names before the canvas can
  // say: the chooser, or the intro and panel of the link's scene (a scene
  // the link does not name, or names wrongly, is the attention scene, as
  // web/link reads it). static/boot.js does the same for the first paint.
  function showLinked() {
    showLanding(isLandingHash());
    if (landing) return;
    const named = new URLSearchParams(location.hash.replace(/^#/, "")).get("scene");
    const scene = scenes.has(named) ? named : SCENES[0].key;
    for (const e of document.querySelectorAll("[data-scene]")) e.hidden = e.dataset.scene !== scene;
  }

  function isLandingHash() {
    return location.hash === "" || location.hash === "#";
  }

  // showLanding shows or hides the chooser of scenes.
  function showLanding(on) {
    if (landing === on) return;
    landing = on;
    document.body.classList.toggle("landing", on);
    $("landing").hidden = !on;
    if (on) for (const e of document.querySelectorAll("[data-scene]")) e.hidden = true;
  }

  // leaveLanding opens link from the chooser in a history entry of its own
  // (Back returns to the chooser): a new one, or the one the browser made
  // when a link was followed. It keeps a theme chosen on the chooser and
  // puts the focus on the scene's title.
  function leaveLanding(link, followed) {
    if (state && state.theme !== "auto" && !/[#&]theme=/.test(link)) link += "&theme=" + state.theme;
    if (followed) history.replaceState(null, "", link); // the browser made the entry
    else history.pushState(null, "", link);
    headlab.open(link);
    const title = document.querySelector(".intro:not([hidden]) h1");
    if (title) title.focus();
  }

  function sceneName(key) {
    const s = SCENES.find((x) => x.key === key);
    return s ? s.name : key;
  }

  // ---- copy link, theme ----
  function copyLink() {
    const url = location.href.split("#")[0] + (canvas && !landing ? canvas.link() : "");
    copy(url, "link", () => {
      const b = $("copy-link");
      b.textContent = "Copied ✓";
      setTimeout(() => (b.textContent = "Copy link"), 1500);
    });
  }

  // copy puts text (what: "link", "embed code") on the clipboard and calls
  // done, or says why it could not and shows the text to copy by hand: in
  // another site's frame the clipboard needs the iframe's
  // allow="clipboard-write".
  function copy(text, what, done) {
    const failed = () => showNotices([framed
      ? "Copying is not allowed in this frame: the page that embeds headlab did not give its iframe " +
        'allow="clipboard-write". Copy the ' + what + " by hand: " + text
      : "The browser refused to copy; copy the " + what + " by hand: " + text]);
    // Where the browser says the frame may not write (Chromium), no
    // write is tried: the attempt is a policy violation in its log.
    const policy = document.permissionsPolicy || document.featurePolicy;
    if (framed && policy && policy.allowsFeature && !policy.allowsFeature("clipboard-write")) {
      failed();
    } else if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, () => (framed ? failed() : fallbackCopy(text, done, failed)));
    } else {
      fallbackCopy(text, done, failed);
    }
  }

  function fallbackCopy(text, done, failed) {
    const t = document.createElement("textarea");
    t.value = text;
    document.body.append(t);
    t.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch (e) {
      ok = false;
    }
    t.remove();
    if (ok) done();
    else failed();
  }

  function applyTheme() {
    // Before the canvas answers, the link's own theme (as static/boot.js read it).
    const linked = !landing && new URLSearchParams(location.hash.replace(/^#/, "")).get("theme");
    const theme = state ? state.theme : linked === "light" || linked === "dark" ? linked : "auto";
    const dark = theme === "dark" || (theme === "auto" && matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    if (canvas) canvas.setDark(dark);
  }

  // ---- start-up ----
  // The API a scene's module builds its panel with.
  const api = {
    ...controls({ set, state: () => state, facts: () => headlab.facts(), field: (key) => fields[key] }),
    field: (key) => fields[key],
    set,
    state: () => state,
    notify: (msgs) => showNotices(msgs),
    open: (link) => headlab.open(link),
    layer: (bytes, name, heads) => figs.layer(bytes, name, heads),
  };
  const page = {
    state: () => state,
    landing: () => landing,
    fields: () => fields,
    set,
    notify: showNotices,
    resync: sync,
    sceneName,
    sceneKey: (k) => {
      const scene = scenes.get(state.scene);
      return !!(scene && scene.key && scene.key(k));
    },
    stepTour: (dir) => tours.step(dir),
    toggleQR,
    leaveLanding,
    linkWith: (keys) => (canvas ? canvas.linkWith(JSON.stringify(keys)) : null),
    copy,
    embedCode: () => {
      if (!canvas || landing) return "";
      const url = location.href.split("#")[0] + canvas.linkWith(JSON.stringify({ embed: "1" }));
      return embedCode(url, "headlab: " + sceneName(state.scene));
    },
  };
  const scenes = new Map(SCENES.map((s) => [s.key, s.make()]));
  const tours = makeTours(page);
  const lecture = makeLecture(page);
  const embed = embedAPI({
    ready: () => headlab.ready && !!canvas,
    busy: () => !!(canvas && JSON.parse(canvas.facts()).computing),
    open: (link) => headlab.open(link),
    key: (k) => lecture.key({ key: k, target: null }),
    report: () => {
      const f = headlab.facts() || {};
      return { link: canvas.link(), step: typeof f.step === "number" ? f.step : 0, steps: typeof f.steps === "number" ? f.steps : 0 };
    },
    notify: showNotices,
  });

  // The view the link opens shows at once, before the canvas has loaded (or
  // if it never does): the chooser for a link-less visit, else the link's
  // scene, as static/boot.js named it for the first paint.
  showLinked();
  delete document.documentElement.dataset.view;
  applyTheme();
  buildSwitcher();
  for (const [key, scene] of scenes) scene.build($("panel-" + key), api);
  exportPanel($("export"), figs, (key) => fields && fields[key]);
  $("theme").addEventListener("change", (e) => set("theme", e.target.value));
  $("copy-link").addEventListener("click", copyLink);
  $("notices-close").addEventListener("click", () => ($("notices").hidden = true));
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
  new ResizeObserver(() => fitCanvas(frame, frame.parentElement, document.body.classList.contains("embed"))).observe(frame.parentElement);
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  $("home").addEventListener("click", (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return; // a new tab: the browser's
    e.preventDefault();
    if (landing) return;
    history.pushState(null, "", location.pathname + location.search);
    route();
    $("landing-title").focus();
  });
  tours.load();
  // If the canvas loaded, or failed to start, before this module ran, say
  // so now.
  try {
    const w = frame.contentWindow;
    if (w && w.headlabCanvas) onLoaded();
    else if (w && w.headlabCanvasFailed) showNotices([String(w.headlabCanvasFailed)]);
  } catch (e) {
    showNotices(["the canvas frame is not reachable: " + e]);
  }
}

start();
