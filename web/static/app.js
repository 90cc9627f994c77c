// headlab's host page: HTML controls, the share link in the URL fragment,
// and window.headlab, the page's test contract (README.md, "The page's test contract"). The numbers
// and the drawing live in the canvas iframe (Go compiled to WebAssembly);
// this script only moves strings between the controls, the URL and the
// canvas's bridge, window.headlabCanvas. User text is only ever set with
// textContent or input values, never parsed as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const frame = $("canvas");
  const MAX_ERRORS = 50;

  // Scenes, in the order the switcher shows them. The attention scene is
  // this file's; the others register themselves in window.headlabScenes
  // (static/atoms.js, static/recovery.js) as { build(panel, api),
  // sync(state, facts), key(k) }, and the switcher lists only those that
  // exist. Their intros are in index.html.
  const modules = window.headlabScenes || {};
  const SCENES = [
    { key: "attention", name: "Attention" },
    { key: "atoms", name: "Atom explosion" },
    { key: "recovery", name: "Recovery" },
    { key: "transformer", name: "Transformer" },
  ].filter((s) => s.key === "attention" || modules[s.key]);
  const HEAD_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"];

  let canvas = null; // the iframe's window.headlabCanvas once loaded
  let state = null; // the last state read from the canvas
  let fields = null; // the link schema by key, with the ranges that hold in state
  let builtFor = ""; // sizes the tables were built for
  let syncQueued = false;
  let landing = false; // the chooser of scenes is shown instead of a scene
  let tours = null; // static/tours.json once loaded: { scene: [{title, link, text}] }
  let tourAt = {}; // the tour step shown and the view it opened: { scene, step, view }

  const headlab = {
    ready: false,
    errors: [],
    version: 1,
    state: () => (canvas ? JSON.parse(canvas.state()) : null),
    link: () => (canvas ? canvas.link() : location.hash),
    facts: () => (canvas ? JSON.parse(canvas.facts()) : null),
    open: (link) => {
      if (!canvas) throw new Error("headlab: the canvas is not loaded yet");
      showLanding(false);
      const notes = JSON.parse(canvas.open(String(link)));
      showNotices(notes);
      sync();
      return notes;
    },
    figure: (fmt, opts) => window.headlabFigures.figure(fmt, opts),
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
    }, 0),
    error: (msg) => setTimeout(() => showNotices([String(msg)]), 0),
    noCanvas: (msg) => setTimeout(() => startFallback(String(msg)), 0),
    notice: (msg) => setTimeout(() => showNotices([String(msg)]), 0),
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
  const SYNC_EVERY = 125;
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
    buildClassPanels();
    const link = canvas.link();
    if (!landing && location.hash !== link) history.replaceState(null, "", link);
    for (const el of document.querySelectorAll("[data-scene]")) el.hidden = landing || el.dataset.scene !== state.scene;
    syncCommon();
    if (state.scene === "attention") {
      syncControls();
      syncTables();
      syncOutputs();
    } else if (modules[state.scene]) {
      modules[state.scene].sync(state, JSON.parse(canvas.facts()));
    }
    syncTour(link);
    $("canvas-alt").textContent = canvas.describe();
    document.title = landing ? TITLE : sceneName(state.scene) + " · " + TITLE;
    applyTheme();
    document.body.classList.toggle("present", !landing && !!state.present);
    $("present").setAttribute("aria-pressed", !landing && state.present ? "true" : "false");
    for (const p of fields.hide.allowed) document.body.classList.toggle("hide-" + p, !landing && state.hide.includes(p));
    document.body.classList.add("synced"); // the panels show (style.css)
    drawFallback();
    if ($("qr").open) drawQR();
  }

  // ---- the link as a QR code, for a room to scan ----
  // The canvas program encodes it (rsc.io/qr, wasm/canvas/qr.go): nothing
  // leaves the page. The code holds the whole address, and follows the
  // state while the dialog is open.
  const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]", "::1"];
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

  // pageURL is the address that opens this view: the page's, with the link.
  function pageURL() {
    return location.href.split("#")[0] + (canvas ? canvas.link() : location.hash);
  }

  function drawQR() {
    if (!canvas) return;
    const url = pageURL();
    if (url === qrShown) return;
    qrShown = url;
    const box = $("qr-code");
    const code = JSON.parse(canvas.qr(url));
    if (code.error) {
      box.replaceChildren(el("p", { text: "This link is too long for a QR code (" + code.error + "); copy it instead." }));
    } else {
      const n = code.size;
      const quiet = 4; // the light margin a scanner needs, in modules
      const NS = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(NS, "svg");
      svg.setAttribute("viewBox", "0 0 " + (n + 2 * quiet) + " " + (n + 2 * quiet));
      svg.setAttribute("shape-rendering", "crispEdges");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", "QR code of " + url);
      const bg = document.createElementNS(NS, "rect");
      bg.setAttribute("width", String(n + 2 * quiet));
      bg.setAttribute("height", String(n + 2 * quiet));
      bg.setAttribute("fill", "#ffffff");
      let d = "";
      for (let y = 0; y < n; y++) {
        for (let x = 0; x < n; x++) {
          if (code.modules[y * n + x] === "1") d += "M" + (x + quiet) + " " + (y + quiet) + "h1v1h-1z";
        }
      }
      const path = document.createElementNS(NS, "path");
      path.setAttribute("d", d);
      path.setAttribute("fill", "#000000");
      svg.append(bg, path);
      svg.dataset.url = url;
      box.replaceChildren(svg);
    }
    $("qr-url").textContent = url.replace(/^https?:\/\//, "");
    const local = LOCAL_HOSTS.includes(location.hostname);
    const warn = $("qr-warn");
    warn.hidden = !local;
    if (local) {
      warn.textContent = "This address (" + location.hostname + ") names this computer: phones in the room cannot open it. " +
        "Serve the page on the room's network with ./build.sh serve -addr 0.0.0.0 and open it by this computer's address, " +
        "or publish ./build.sh dist on a web host.";
    }
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
    if (offlineAsked || !offline) return;
    offlineAsked = true;
    navigator.serviceWorker.register("sw.js").catch((err) => console.warn("headlab: no offline copy:", String(err && err.message || err)));
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
    window.headlabFigures.figure("svg", { link, size: "two" })
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

  // ---- scene switcher ----
  function buildScenes() {
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

  // ---- controls every scene shares ----
  function syncCommon() {
    $("theme").value = state.theme;
    for (const b of $("scenes").children) {
      if (!landing && b.dataset.target === state.scene) b.setAttribute("aria-current", "page");
      else b.removeAttribute("aria-current");
    }
  }

  // ---- the attention scene's controls ----
  function syncControls() {
    for (const key of ["H", "d", "seed"]) {
      const el = $("ctl-" + key);
      if (document.activeElement !== el) el.value = state[key];
    }
    const heat = $("ctl-heat");
    if (heat.options.length !== state.H + 1) {
      heat.replaceChildren();
      const none = new Option("none", "0");
      heat.append(none);
      for (let h = 1; h <= state.H; h++) heat.append(new Option("head " + h, String(h)));
    }
    heat.value = String(state.heat);
    $("token-count").textContent = String(state.N);
    $("add-token").disabled = state.N >= fields.N.max;
    $("remove-token").disabled = state.N <= fields.N.min;
  }

  function bindControls() {
    for (const key of ["H", "d", "seed"]) {
      $("ctl-" + key).addEventListener("change", (e) => set(key, e.target.value));
    }
    $("ctl-heat").addEventListener("change", (e) => set("heat", e.target.value));
    $("theme").addEventListener("change", (e) => set("theme", e.target.value));
    $("new-seed").addEventListener("click", () => set("seed", Math.floor(Math.random() * 1e6)));
    $("add-token").addEventListener("click", () => set("N", state.N + 1));
    $("remove-token").addEventListener("click", () => set("N", state.N - 1));
    $("controls").addEventListener("submit", (e) => e.preventDefault());
    $("copy-link").addEventListener("click", copyLink);
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", applyTheme);
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
    const scene = SCENES.some((s) => s.key === named) ? named : "attention";
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
    if (on) for (const el of document.querySelectorAll("[data-scene]")) el.hidden = true;
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

  const TITLE = document.title;
  function sceneName(key) {
    const s = SCENES.find((x) => x.key === key);
    return s ? s.name : key;
  }

  // ---- guided tours: a few steps per scene, each step a link ----
  function loadTours() {
    fetch("static/tours.json")
      .then((r) => {
        if (!r.ok) throw new Error("HTTP " + r.status);
        return r.json();
      })
      .then((t) => {
        tours = t;
        if (state) sync();
      })
      .catch((err) => showNotices(["the guided tours could not be loaded: " + err.message]));
  }

  // syncTour shows the tour step the state names, with links to the others;
  // link is the canvas's link of the view shown.
  function syncTour(link) {
    const box = $("tour");
    const steps = tours && tours[state.scene];
    if (landing || !state.tour || !steps) {
      box.hidden = true;
      return;
    }
    if (state.tour > steps.length) {
      box.hidden = true;
      showNotices(["tour: the " + sceneName(state.scene) + " tour has " + steps.length + " steps; there is no step " + state.tour]);
      set("tour", "0");
      return;
    }
    const k = state.tour;
    const step = steps[k - 1];
    // The view this step opened, to tell when the user has moved on from it.
    const here = tourView(link);
    if (tourAt.scene !== state.scene || tourAt.step !== k) tourAt = { scene: state.scene, step: k, view: here };
    const moved = here !== tourAt.view;
    $("tour-moved").hidden = !moved;
    $("tour-back").href = step.link;
    box.hidden = false;
    $("tour-count").textContent = "Tour of " + sceneName(state.scene) + " · step " + k + " of " + steps.length;
    $("tour-title").textContent = step.title;
    $("tour-text").textContent = step.text;
    tourLink($("tour-prev"), k > 1 ? steps[k - 2].link : "");
    tourLink($("tour-next"), k < steps.length ? steps[k].link : "");
    const ol = $("tour-steps");
    if (ol.children.length !== steps.length || ol.dataset.scene !== state.scene) {
      ol.replaceChildren();
      ol.dataset.scene = state.scene;
      steps.forEach((st, i) => {
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

  // stepTour follows the tour's previous (-1) or next (+1) link, if any.
  function stepTour(dir) {
    const a = $(dir < 0 ? "tour-prev" : "tour-next");
    if ($("tour").hidden || !a.hasAttribute("href")) return false;
    location.hash = a.getAttribute("href");
    return true;
  }

  function copyLink() {
    const url = location.href.split("#")[0] + (canvas && !landing ? canvas.link() : "");
    const done = () => {
      const b = $("copy-link");
      b.textContent = "Copied ✓";
      setTimeout(() => (b.textContent = "Copy link"), 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(url).then(done, () => fallbackCopy(url, done));
    } else {
      fallbackCopy(url, done);
    }
  }

  function fallbackCopy(url, done) {
    const t = document.createElement("textarea");
    t.value = url;
    document.body.append(t);
    t.select();
    try {
      document.execCommand("copy");
      done();
    } catch (e) {
      showNotices(["Copy the link from the address bar: " + url]);
    }
    t.remove();
  }

  function applyTheme() {
    // Before the canvas answers, the link's own theme (as static/boot.js read it).
    const linked = !landing && new URLSearchParams(location.hash.replace(/^#/, "")).get("theme");
    const theme = state ? state.theme : linked === "light" || linked === "dark" ? linked : "auto";
    const dark = theme === "dark" || (theme === "auto" && matchMedia("(prefers-color-scheme: dark)").matches);
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    if (canvas) canvas.setDark(dark);
  }

  // ---- the editable tables of heads and tokens ----
  function numberInput(label, value, onChange) {
    const el = document.createElement("input");
    el.type = "number";
    el.step = "0.01";
    el.setAttribute("aria-label", label);
    el.value = value;
    el.addEventListener("change", () => {
      const x = Number(el.value);
      if (el.value.trim() === "" || !Number.isFinite(x)) {
        showNotices([label + ": " + JSON.stringify(el.value.slice(0, 40)) + " is not a number; unchanged"]);
        syncTables(true);
        return;
      }
      onChange(x);
    });
    return el;
  }

  function setListEntry(key, index, x) {
    const list = state[key].slice();
    list[index] = x;
    set(key, list.join(","));
  }

  function syncTables(force) {
    const sizes = [state.H, state.d, state.N].join(",");
    if (force || sizes !== builtFor) {
      builtFor = sizes;
      buildHeads();
      buildTokens();
      $("tokens-details").open = state.d > 2 || $("tokens-details").open;
      return;
    }
    // Same sizes: update the values in place, leaving a focused field alone.
    for (const el of document.querySelectorAll("[data-list]")) {
      if (el === document.activeElement) continue;
      const v = state[el.dataset.list][Number(el.dataset.index)];
      if (Number(el.value) !== v) el.value = v;
    }
  }

  function buildHeads() {
    const root = $("heads");
    root.replaceChildren();
    const d = state.d;
    for (let h = 0; h < state.H; h++) {
      const box = document.createElement("fieldset");
      box.className = "head";
      const lg = document.createElement("legend");
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = HEAD_COLORS[h % 8];
      lg.append(sw, document.createTextNode(" head " + (h + 1)));
      box.append(lg);
      const grid = document.createElement("div");
      grid.className = "matrix";
      grid.style.gridTemplateColumns = "auto repeat(" + d + ", minmax(3.2em, 1fr))";
      for (let r = 0; r < d; r++) {
        const name = document.createElement("span");
        name.textContent = r === 0 ? "W" : "";
        grid.append(name);
        for (let c = 0; c < d; c++) {
          const idx = h * d * d + r * d + c;
          const el = numberInput("W of head " + (h + 1) + ", row " + (r + 1) + ", column " + (c + 1), state.W[idx], (x) => setListEntry("W", idx, x));
          el.dataset.list = "W";
          el.dataset.index = idx;
          grid.append(el);
        }
      }
      const vname = document.createElement("span");
      vname.textContent = "v";
      grid.append(vname);
      for (let c = 0; c < d; c++) {
        const idx = h * d + c;
        const el = numberInput("v of head " + (h + 1) + ", entry " + (c + 1), state.val[idx], (x) => setListEntry("val", idx, x));
        el.dataset.list = "val";
        el.dataset.index = idx;
        grid.append(el);
      }
      box.append(grid);
      root.append(box);
    }
  }

  function buildTokens() {
    const root = $("tokens");
    root.replaceChildren();
    const d = state.d;
    const grid = document.createElement("div");
    grid.className = "matrix";
    grid.style.gridTemplateColumns = "auto repeat(" + d + ", minmax(3.2em, 1fr))";
    for (let i = 0; i < state.N; i++) {
      const name = document.createElement("span");
      name.textContent = i === state.N - 1 ? "query" : "x" + (i + 1);
      grid.append(name);
      for (let c = 0; c < d; c++) {
        const idx = i * d + c;
        const el = numberInput("token " + (i + 1) + ", coordinate " + (c + 1), state.tok[idx], (x) => setListEntry("tok", idx, x));
        el.dataset.list = "tok";
        el.dataset.index = idx;
        grid.append(el);
      }
    }
    root.append(grid);
  }

  // ---- outputs: per-head bars and their sum, with values ----
  function syncOutputs() {
    const f = JSON.parse(canvas.facts());
    const rows = f.heads.map((y, h) => ({ name: "head " + (h + 1), y, color: HEAD_COLORS[h % 8] }));
    rows.push({ name: "layer (sum)", y: f.output, color: "" });
    const peak = Math.max(1e-12, ...rows.map((r) => Math.abs(r.y)));
    const root = $("bars");
    if (root.children.length !== rows.length) {
      root.replaceChildren();
      for (const r of rows) {
        const row = document.createElement("div");
        row.className = "bar-row";
        const name = document.createElement("span");
        name.className = "bar-name";
        const track = document.createElement("span");
        track.className = "bar-track";
        const bar = document.createElement("span");
        bar.className = "bar";
        track.append(bar);
        const val = document.createElement("output");
        val.className = "bar-value";
        row.append(name, track, val);
        root.append(row);
      }
    }
    rows.forEach((r, i) => {
      const row = root.children[i];
      row.classList.toggle("sum", r.color === "");
      row.children[0].textContent = r.name;
      const bar = row.children[1].firstChild;
      const frac = Math.abs(r.y) / peak;
      bar.style.width = (50 * frac).toFixed(2) + "%";
      bar.style.left = r.y >= 0 ? "50%" : (50 - 50 * frac).toFixed(2) + "%";
      bar.style.background = r.color || "var(--fg)";
      row.children[2].textContent = r.y.toFixed(6);
    });
    const c = $("canonical");
    if (f.canonical < state.H) {
      c.textContent = "Some heads share W (or cancel): the canonical form of this layer has " + f.canonical +
        " head" + (f.canonical === 1 ? "" : "s") + " instead of " + state.H + ", with the same output.";
    } else {
      c.textContent = "All " + state.H + " heads are distinct: the layer is already canonical.";
    }
  }

  // ---- lecture use: keyboard, presentation mode, text size, class links ----
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
  let textSize = 16;

  // onKey handles a key pressed in the page or forwarded from the canvas;
  // it returns whether the key was used. Keys typed into a field are never
  // taken, nor keys with a modifier (the browser's own shortcuts).
  function onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const t = e.target;
    if (t && t.nodeType === 1 && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return false;
    if (t && t.nodeType === 1 && t.tagName === "BUTTON" && (e.key === " " || e.key === "Enter")) return false;
    if ($("help").open && e.key !== "?") return false;
    if ($("qr").open && (e.key === "Enter" || e.key === " ")) return false; // the dialog's Close button
    const mod = state && modules[state.scene];
    if (!landing && mod && mod.key && mod.key(e.key)) return true;
    switch (e.key) {
      case "ArrowLeft":
        return stepTour(-1);
      case "ArrowRight":
        return stepTour(1);
      case "f":
        toggleFullscreen();
        return true;
      case "p":
        if (landing) return false;
        togglePresent();
        return true;
      case "+":
      case "=":
        setTextSize(textSize + 2);
        return true;
      case "-":
      case "_":
        setTextSize(textSize - 2);
        return true;
      case "t": {
        const dark = document.documentElement.dataset.theme === "dark";
        set("theme", dark ? "light" : "dark");
        return true;
      }
      case "?":
        toggleHelp();
        return true;
      case "q":
        if (landing) return false;
        toggleQR();
        return true;
    }
    return false;
  }

  // togglePresent switches presentation mode, and with it full screen: a
  // key or a click may ask for it, a link cannot (the browser needs a
  // gesture), so a presentation link fills the window and f the screen.
  function togglePresent() {
    const on = !(state && state.present);
    set("present", on ? "1" : "0");
    if (on !== !!document.fullscreenElement) toggleFullscreen();
  }

  function toggleFullscreen() {
    if (document.fullscreenElement) {
      document.exitFullscreen().catch(() => {});
    } else if (document.documentElement.requestFullscreen) {
      document.documentElement.requestFullscreen().catch((err) => showNotices(["full screen was refused: " + err.message]));
    }
  }

  function setTextSize(px) {
    textSize = Math.max(12, Math.min(32, px));
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

  function buildHelp() {
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
    $("class-copy").addEventListener("click", () => {
      const url = $("class-url").value;
      if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => $("class-url").select());
      else $("class-url").select();
    });
    $("help-open").addEventListener("click", toggleHelp);
    $("qr-open").addEventListener("click", () => {
      if (landing) leaveLanding("#v=1&scene=" + (state ? state.scene : "attention"));
      toggleQR();
    });
    $("present").addEventListener("click", () => {
      if (landing) leaveLanding("#v=1&scene=" + (state ? state.scene : "attention") + "&present=1");
      else togglePresent();
    });
    document.addEventListener("keydown", (e) => {
      if (onKey(e)) e.preventDefault();
    });
  }

  // buildClassPanels lists the panels a class link can hide, as the link
  // schema names them (once the canvas, which holds the schema, is there).
  function buildClassPanels() {
    const box = $("class-panels");
    if (box.children.length) return;
    for (const p of fields.hide.allowed) {
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
    if (!canvas) return;
    const hidden = [...$("class-panels").querySelectorAll("input")].filter((c) => !c.checked).map((c) => c.dataset.panel);
    const link = canvas.linkWith(JSON.stringify({ hide: hidden.join(","), present: $("class-present").checked ? "1" : "0" }));
    $("class-url").value = location.href.split("#")[0] + link;
  }

  window.headlabHost.key = (e) => onKey(e);

  // el builds an element: props set properties or attributes ("class",
  // and "text" through textContent, so user text is never parsed as HTML).
  function el(tag, props, ...children) {
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
  function v(name, sub) {
    const e = el("var", { text: name });
    if (sub) e.append(el("sub", { text: sub }));
    return e;
  }

  // numberField builds a labelled integer field for the link key key, with
  // the id prefix+key: the label's text, the variable named variable (if
  // any), the field. A change sets the key.
  // Its min and max come from the link schema on every sync (applyLimits).
  function numberField(prefix, label, key, variable) {
    const input = el("input", { type: "number", step: "1", id: prefix + key, name: key });
    input.addEventListener("change", () => set(key, input.value));
    const lab = el("label", null, label, " ");
    if (variable) lab.append(v(variable), " ");
    lab.append(input);
    return { lab, input };
  }

  // setIfIdle writes value into a field the user is not editing.
  function setIfIdle(input, value) {
    if (document.activeElement !== input && input.value !== String(value)) input.value = String(value);
  }

  // setText changes an element's text only when it differs (no needless
  // mutation for screen readers and layout).
  function setText(e, t) {
    if (e.textContent !== t) e.textContent = t;
  }

  // sci writes a number in short scientific notation, or a dash.
  function sci(x) {
    return typeof x === "number" && Number.isFinite(x) ? x.toExponential(1).replace("e-", "e−") : "—";
  }

  // row is one name–value pair of a description list.
  function row(name, value) {
    return [el("dt", { text: name }), el("dd", { text: String(value) })];
  }

  // stepper builds the step controls of a scene that replays a run (the
  // link's step key): first, previous, play, next, last, a slider and a
  // line of text, with the ids prefix+"first" … prefix+"step-text". It
  // returns them as fieldset, and key (the scene's ←/→/Home/End/Space),
  // stop and sync (after every state change: f.step, f.steps, f.computing;
  // text the line to show).
  function stepper(prefix, scene, playMs) {
    let timer = 0;
    const cur = () => (state && state.scene === scene ? state : null);
    let facts = null;
    const last = () => (facts && typeof facts.steps === "number" ? facts.steps : state.step);
    const go = (k) => {
      if (!cur() || !facts || facts.computing) return;
      const to = Math.max(0, Math.min(last(), k));
      if (to !== state.step) set("step", to);
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
      if (state.view !== "steps") set("view", "steps");
      if (state.step >= last()) go(0);
      timer = setInterval(() => {
        if (!cur() || state.step >= last()) stop();
        else go(state.step + 1);
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
      prev: btn("prev", "◀", "previous step (←)", () => go(state.step - 1)),
      play: btn("play", "▶ play", "play / pause (Space)", toggle),
      next: btn("next", "▶", "next step (→)", () => go(state.step + 1)),
      last: btn("last", "▶|", "last step (End)", () => go(last())),
      slider: el("input", { type: "range", min: "0", max: "1", step: "1", id: prefix + "step" }),
      text: el("output", { class: "rec-step-text", id: prefix + "step-text" }),
    };
    els.slider.setAttribute("aria-label", "step");
    els.slider.addEventListener("change", () => go(Number(els.slider.value)));
    const fieldset = el("fieldset", { class: "rec-stepper" }, el("legend", { text: "Step" }),
      el("div", { class: "rec-buttons" }, els.first, els.prev, els.play, els.next, els.last),
      els.slider, els.text);
    const keys = { ArrowRight: () => go(state.step + 1), ArrowLeft: () => go(state.step - 1),
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
      b.addEventListener("click", () => set("view", key));
      group.append(b);
    }
    return {
      group,
      sync(view) {
        for (const b of group.children) b.setAttribute("aria-pressed", b.dataset.view === view ? "true" : "false");
      },
    };
  }

  // The API a scene module builds its panel with.
  const api = {
    el,
    v,
    numberField,
    stepper,
    viewPicker,
    setIfIdle,
    setText,
    sci,
    row,
    field: (key) => fields[key],
    set,
    state: () => state,
    facts: () => (canvas ? JSON.parse(canvas.facts()) : null),
    notify: (msgs) => showNotices(msgs),
    canvas: () => canvas,
  };

  // The view the link opens shows at once, before the canvas has loaded (or
  // if it never does): the chooser for a link-less visit, else the link's
  // scene, as static/boot.js named it for the first paint.
  showLinked();
  delete document.documentElement.dataset.view;
  applyTheme();
  buildScenes();
  bindControls();
  buildHelp();
  for (const s of SCENES) {
    if (modules[s.key]) modules[s.key].build($("panel-" + s.key), api);
  }
  $("tour-end").addEventListener("click", () => set("tour", "0"));
  loadTours();
  // If the canvas loaded before this script ran, start now.
  try {
    if (frame.contentWindow && frame.contentWindow.headlabCanvas) onLoaded();
  } catch (e) {
    showNotices(["the canvas frame is not reachable: " + e]);
  }
})();
