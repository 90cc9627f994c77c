// Runs before the body is parsed (a small blocking script in <head>): it
// names the view the link opens on the root element, data-view = landing,
// attention, atoms or recovery, and sets the link's theme, so that the first
// paint already shows that scene's intro and panel in its colours, and
// nothing moves when app.js and the canvas arrive. A link-less visit opens
// the chooser of scenes. app.js takes over from data-view when it runs,
// and from data-embed (embed mode, embed=1) when the canvas answers.
// The link itself is parsed by the canvas (web/link); a scene it does not
// know opens the attention scene there too.
"use strict";
(function () {
  const root = document.documentElement;
  const hash = location.hash.replace(/^#/, "");
  if (hash === "") {
    root.dataset.view = "landing";
    return;
  }
  const p = new URLSearchParams(hash);
  const scene = p.get("scene");
  // The scenes of web/link's Scenes (TestFirstPaint opens each of them).
  root.dataset.view = ["attention", "atoms", "recovery", "transformer"].includes(scene) ? scene : "attention";
  if (p.get("embed") === "1") root.dataset.embed = "1"; // embed mode's layout (style.css)
  const theme = p.get("theme");
  const dark = theme === "dark" || (theme !== "light" && matchMedia("(prefers-color-scheme: dark)").matches);
  root.dataset.theme = dark ? "dark" : "light";
})();
