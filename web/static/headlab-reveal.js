// headlab's reveal.js plugin: a scene embedded in a slide (an iframe whose
// src is a headlab link with embed=1) steps with the deck's keys. While the
// scene on the current slide has steps left, → steps it on, and ← back
// while it is past its first step; otherwise the keys move the deck as
// usual, so at a scene's last step → goes to the next slide.
//
//   <script src="https://…/headlab/static/headlab-reveal.js"></script>
//   <script>Reveal.initialize({ plugins: [HeadlabReveal] });</script>
//
// It speaks headlab's postMessage API (README.md, "In slides and course
// pages"): it keeps each frame's last {headlab: 1, ready: true, link, step,
// steps} and sends {headlab: 1, key} to the frame, at its src's origin
// only. deck.getPlugin("headlab").view(iframe) returns the last report of
// that frame ({link, step, steps}), or null before it is ready.
(function (root) {
  "use strict";

  function HeadlabReveal() {
    const views = new Map(); // a frame's window → its last report
    let deck = null;

    const frames = () => Array.from(document.querySelectorAll("iframe"));

    // current returns the first headlab frame of the current slide that has
    // reported, with its report.
    function current() {
      const slide = deck.getCurrentSlide();
      if (!slide) return null;
      for (const frame of slide.querySelectorAll("iframe")) {
        const view = views.get(frame.contentWindow);
        if (view) return { frame, view };
      }
      return null;
    }

    // step sends the current slide's scene one step on (dir 1) or back
    // (-1), and reports whether it did.
    function step(dir) {
      const c = current();
      if (!c) return false;
      const v = c.view;
      if (dir > 0 ? v.step >= v.steps : v.step <= 0) return false;
      v.step += dir; // until the frame's next report says where it is
      const origin = new URL(c.frame.src, location.href).origin;
      c.frame.contentWindow.postMessage({ headlab: 1, key: dir > 0 ? "ArrowRight" : "ArrowLeft" }, origin);
      return true;
    }

    function onMessage(e) {
      const m = e.data;
      if (!m || typeof m !== "object" || m.headlab !== 1 || m.ready !== true) return;
      const frame = frames().find((f) => f.contentWindow === e.source);
      if (!frame || new URL(frame.src, location.href).origin !== e.origin) return;
      const count = (n) => (Number.isInteger(n) && n >= 0 ? n : 0);
      views.set(e.source, { link: String(m.link), step: count(m.step), steps: count(m.steps) });
    }

    return {
      id: "headlab",
      init(d) {
        deck = d;
        window.addEventListener("message", onMessage);
        deck.addKeyBinding({ keyCode: 39, key: "→", description: "next step of the headlab scene, then next slide" },
          () => step(1) || deck.right());
        deck.addKeyBinding({ keyCode: 37, key: "←", description: "previous step of the headlab scene, then previous slide" },
          () => step(-1) || deck.left());
      },
      view(frame) {
        const v = frame && views.get(frame.contentWindow);
        return v ? { ...v } : null;
      },
    };
  }

  root.HeadlabReveal = HeadlabReveal;
})(window);
