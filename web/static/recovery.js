// The Recovery scene's panel (placeholder until the scene lands).
"use strict";
