// The Atom explosion scene's panel (placeholder until the scene lands).
"use strict";
