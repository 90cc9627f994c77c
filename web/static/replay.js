// Replay of a recorded run: the control that opens a run log (the
// recover command's -log file, JSON lines) in the Recovery scene, and the
// words the scene's panel shows while a replay is on. The log's bytes go to
// the canvas (window.headlab.openRun), which checks them: a file that is
// not a run log, or too large, gets a notice and changes nothing. The
// file's name and the oracle its header names are user text, set only
// with textContent.
import { el, setText } from "./widgets.js";

// RUN_LOG says which dropped or chosen files are run logs.
const RUN_LOG = /\.(jsonl|log)$/i;

// open reads a file and hands it to the page.
function open(file, status) {
  setText(status, "Reading " + file.name + "…");
  file.arrayBuffer().then((buf) => {
    const notes = window.headlab.openRun(file.name, new Uint8Array(buf));
    setText(status, notes.length ? notes[notes.length - 1] : "");
  }, (err) => setText(status, "Could not read " + file.name + ": " + (err && err.message || err)));
}

// replayControl returns the fieldset that opens a run log, and installs a
// drop handler for run logs dropped on the page.
export function replayControl() {
  const input = el("input", { type: "file", id: "rec-runlog", accept: ".jsonl,.log,application/jsonl,text/plain" });
  const status = el("p", { class: "hint", id: "rec-runlog-status", "aria-live": "polite" });
  input.addEventListener("change", () => {
    if (input.files && input.files[0]) open(input.files[0], status);
    input.value = "";
  });
  document.addEventListener("dragover", (e) => {
    if (e.dataTransfer && [...e.dataTransfer.items].some((i) => i.kind === "file")) e.preventDefault();
  });
  document.addEventListener("drop", (e) => {
    const files = e.dataTransfer ? [...e.dataTransfer.files].filter((f) => RUN_LOG.test(f.name)) : [];
    if (!files.length) return; // not ours: another control's file
    e.preventDefault();
    open(files[0], status);
  });
  return el("fieldset", { id: "rec-replay" }, el("legend", { text: "Replay a recorded run" }),
    el("label", null, "Run log (recover -log) ", input), status);
}

// replayText says what the panel shows of a replay, or null when the
// scene is not replaying one.
export function replayText(f) {
  if (!f || !f.replay) return null;
  const r = f.replay;
  return "Replay of the run log " + r.name + " (SHA-256 " + r.sha256.slice(0, 16) + "…" + (r.fromLink ? ", its answers carried by the link" : "") +
    "), recorded from the oracle " + JSON.stringify(r.oracle) + ": " + r.answers + " answers. There is no true layer to compare with.";
}
