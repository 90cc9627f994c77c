// The Attention scene's panel: the layer (H, d, seed, the heat map's
// head), the tokens, the outputs of every head and their sum, and the
// editable tables of W_h, v_h and the tokens. Its markup is index.html's
// (#panel-attention), so that the first paint shows it; this module binds
// it to the state. Every control changes the state through api.set, so
// every control is in the share link. The numbers come from the canvas
// (facts). Text is only ever set with textContent.
import { HEAD_COLORS } from "./palette.js";

const $ = (id) => document.getElementById(id);

// attention makes the scene for the page's list of scenes (scenes.js).
export function attention() {
  let api = null;
  let state = null; // the state last synced
  let builtFor = ""; // the sizes the tables were built for

  function build(panel, a) {
    api = a;
    for (const key of ["H", "d", "seed"]) {
      $("ctl-" + key).addEventListener("change", (e) => api.set(key, e.target.value));
    }
    $("ctl-heat").addEventListener("change", (e) => api.set("heat", e.target.value));
    $("ctl-bias").addEventListener("change", (e) => api.set("bias", e.target.checked ? "1" : "0"));
    $("new-seed").addEventListener("click", () => api.set("seed", Math.floor(Math.random() * 1e6)));
    $("add-token").addEventListener("click", () => api.set("N", state.N + 1));
    $("remove-token").addEventListener("click", () => api.set("N", state.N - 1));
    $("controls").addEventListener("submit", (e) => e.preventDefault());
    bindImport();
  }

  // ---- a layer file, opened or dropped (web/layerimport reads it in the
  // figures worker, loaded on first use) ----
  const MAX_FILE = 64 << 20; // numerics/layerfile.MaxBytes
  let waiting = null; // a file that needs H, opened again once H is given

  function bindImport() {
    const input = $("layer-file");
    input.addEventListener("change", () => {
      if (input.files && input.files[0]) importFile(input.files[0]);
      input.value = "";
    });
    $("layer-heads").addEventListener("change", () => { if (waiting) importFile(waiting); });
    const files = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");
    document.addEventListener("dragover", (e) => {
      if (!files(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = "copy";
    });
    document.addEventListener("drop", (e) => {
      if (!files(e)) return;
      e.preventDefault();
      const f = e.dataTransfer.files && e.dataTransfer.files[0];
      if (f) importFile(f);
    });
  }

  function importFile(file) {
    const status = $("layer-status");
    const name = String(file.name).slice(0, 80);
    const refuse = (msg) => {
      status.textContent = msg;
      api.notify([msg]);
    };
    waiting = null;
    if (!/\.(npz|safetensors)$/i.test(file.name)) return refuse(JSON.stringify(name) + " is neither .npz nor .safetensors; nothing changed");
    if (file.size > MAX_FILE) return refuse(JSON.stringify(name) + " is larger than 64 MiB; nothing changed");
    status.textContent = "Reading " + name + "…";
    const heads = Number($("layer-heads").value) || 0;
    file.arrayBuffer()
      .then((buf) => api.layer(new Uint8Array(buf), file.name, heads))
      .then((r) => {
        if (!r.ok) {
          if (r.needHeads) {
            waiting = file;
            $("layer-heads").focus();
            return refuse(String(r.error) + ". Enter H beside the file: it opens then.");
          }
          return refuse(String(r.error) + "; nothing changed");
        }
        api.open(r.link);
        status.textContent = "Opened " + name + ": " + r.heads + " head" + (r.heads === 1 ? "" : "s") + " of width d = " + r.width +
          (r.biased ? ", with biases c_h and C" : ", without biases") + " (" + r.source + "). The link carries the layer.";
      })
      .catch((err) => refuse("Could not read " + name + ": " + String((err && err.message) || err) + "; nothing changed"));
  }

  function sync(s, facts) {
    state = s;
    syncControls();
    syncTables(false);
    syncOutputs(facts);
  }

  function syncControls() {
    for (const key of ["H", "d", "seed"]) {
      const input = $("ctl-" + key);
      if (document.activeElement !== input) input.value = state[key];
    }
    const heat = $("ctl-heat");
    if (heat.options.length !== state.H + 1) {
      heat.replaceChildren();
      heat.append(new Option("none", "0"));
      for (let h = 1; h <= state.H; h++) heat.append(new Option("head " + h, String(h)));
    }
    heat.value = String(state.heat);
    $("ctl-bias").checked = state.bias;
    $("token-count").textContent = String(state.N);
    const n = api.field("N");
    $("add-token").disabled = state.N >= n.max;
    $("remove-token").disabled = state.N <= n.min;
  }

  // ---- the editable tables of heads and tokens ----
  function numberInput(label, value, onChange) {
    const input = document.createElement("input");
    input.type = "number";
    input.step = "0.01";
    input.setAttribute("aria-label", label);
    input.value = value;
    input.addEventListener("change", () => {
      const x = Number(input.value);
      if (input.value.trim() === "" || !Number.isFinite(x)) {
        api.notify([label + ": " + JSON.stringify(input.value.slice(0, 40)) + " is not a number; unchanged"]);
        syncTables(true);
        return;
      }
      onChange(x);
    });
    return input;
  }

  function setListEntry(key, index, x) {
    if (typeof state[key] === "number") return api.set(key, String(x)); // C, one number
    const list = state[key].slice();
    list[index] = x;
    api.set(key, list.join(","));
  }

  function syncTables(force) {
    const sizes = [state.H, state.d, state.N, state.bias].join(",");
    if (force || sizes !== builtFor) {
      builtFor = sizes;
      buildHeads();
      buildTokens();
      $("tokens-details").open = state.d > 2 || $("tokens-details").open;
      return;
    }
    // Same sizes: update the values in place, leaving a focused field alone.
    for (const input of document.querySelectorAll("[data-list]")) {
      if (input === document.activeElement) continue;
      const list = state[input.dataset.list];
      const x = typeof list === "number" ? list : list[Number(input.dataset.index)];
      if (Number(input.value) !== x) input.value = x;
    }
  }

  // listInput is a table's field for entry index of the link's list key.
  function listInput(label, key, index) {
    const value = typeof state[key] === "number" ? state[key] : state[key][index];
    const input = numberInput(label, value, (x) => setListEntry(key, index, x));
    input.dataset.list = key;
    input.dataset.index = index;
    return input;
  }

  // matrix is a table's grid of d columns after a column of row names.
  function matrix(d) {
    const grid = document.createElement("div");
    grid.className = "matrix";
    grid.style.gridTemplateColumns = "auto repeat(" + d + ", minmax(3.2em, 1fr))";
    return grid;
  }

  function rowName(text) {
    const name = document.createElement("span");
    name.textContent = text;
    return name;
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
      sw.style.background = HEAD_COLORS[h % HEAD_COLORS.length];
      lg.append(sw, document.createTextNode(" head " + (h + 1)));
      box.append(lg);
      const grid = matrix(d);
      for (let r = 0; r < d; r++) {
        grid.append(rowName(r === 0 ? "W" : ""));
        for (let c = 0; c < d; c++) {
          grid.append(listInput("W of head " + (h + 1) + ", row " + (r + 1) + ", column " + (c + 1), "W", h * d * d + r * d + c));
        }
      }
      grid.append(rowName("v"));
      for (let c = 0; c < d; c++) grid.append(listInput("v of head " + (h + 1) + ", entry " + (c + 1), "val", h * d + c));
      if (state.bias) {
        grid.append(rowName("c"));
        for (let c = 0; c < d; c++) grid.append(listInput("query bias c of head " + (h + 1) + ", entry " + (c + 1), "c", h * d + c));
      }
      box.append(grid);
      root.append(box);
    }
    if (state.bias) {
      // C, the layer's constant: one number added to the output.
      const box = document.createElement("fieldset");
      box.className = "head";
      const lg = document.createElement("legend");
      lg.textContent = "constant";
      box.append(lg);
      const grid = matrix(1);
      grid.append(rowName("C"), listInput("the layer's constant C", "C", 0));
      box.append(grid);
      root.append(box);
    }
  }

  function buildTokens() {
    const root = $("tokens");
    root.replaceChildren();
    const d = state.d;
    const grid = matrix(d);
    for (let i = 0; i < state.N; i++) {
      grid.append(rowName(i === state.N - 1 ? "query" : "x" + (i + 1)));
      for (let c = 0; c < d; c++) grid.append(listInput("token " + (i + 1) + ", coordinate " + (c + 1), "tok", i * d + c));
    }
    root.append(grid);
  }

  // ---- outputs: per-head bars and their sum, with values ----
  function syncOutputs(f) {
    const rows = f.heads.map((y, h) => ({ name: "head " + (h + 1), y, color: HEAD_COLORS[h % HEAD_COLORS.length] }));
    if (state.bias) rows.push({ name: "constant C", y: f.const, color: "var(--muted)" });
    rows.push({ name: "layer (sum)", y: f.output, color: "" });
    const peak = Math.max(1e-12, ...rows.map((r) => Math.abs(r.y)));
    const root = $("bars");
    if (root.children.length !== rows.length) {
      root.replaceChildren();
      for (let i = 0; i < rows.length; i++) {
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

  return { build, sync };
}
