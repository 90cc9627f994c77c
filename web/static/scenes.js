// The page's scenes, in the order the switcher shows them: the one list a
// new scene joins on the page's side. Each entry names its link key (as
// web/link's Scenes spells it), its name in the switcher and the title,
// and the module that makes its panel: make() returns
// { build(panel, api), sync(state, facts), key(k) } (key optional, the
// scene's own keys; true when taken). A scene's intro and its panel's
// element, #panel-KEY, are in index.html, where the first paint shows them
// (static/boot.js and style.css; TestFirstPaint opens every scene).
import { attention } from "./attention.js";
import { atoms } from "./atoms.js";
import { recovery } from "./recovery.js";
import { transformer } from "./transformer.js";

export const SCENES = Object.freeze([
  { key: "attention", name: "Attention", make: attention },
  { key: "atoms", name: "Atom explosion", make: atoms },
  { key: "recovery", name: "Recovery", make: recovery },
  { key: "transformer", name: "Transformer", make: transformer },
]);
