// The link as a QR code, for a room to scan. The canvas program encodes it
// (rsc.io/qr, wasm/canvas/qr.go); this module draws the code it returns as
// SVG, and says when the address cannot be reached from the room. Nothing
// leaves the page.

const NS = "http://www.w3.org/2000/svg";
const QUIET = 4; // the light margin a scanner needs, in modules
const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]", "::1"];

// qrSVG draws code ({ size, modules: a string of size² "0"s and "1"s, row
// by row }) as an SVG element that names url.
export function qrSVG(code, url) {
  const n = code.size;
  const side = String(n + 2 * QUIET);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 " + side + " " + side);
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "QR code of " + url);
  const bg = document.createElementNS(NS, "rect");
  bg.setAttribute("width", side);
  bg.setAttribute("height", side);
  bg.setAttribute("fill", "#ffffff");
  let d = "";
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      if (code.modules[y * n + x] === "1") d += "M" + (x + QUIET) + " " + (y + QUIET) + "h1v1h-1z";
    }
  }
  const path = document.createElementNS(NS, "path");
  path.setAttribute("d", d);
  path.setAttribute("fill", "#000000");
  svg.append(bg, path);
  svg.dataset.url = url;
  return svg;
}

// localWarning says why phones in the room cannot open a page served from
// hostname, or returns "" when they can.
export function localWarning(hostname) {
  if (!LOCAL_HOSTS.includes(hostname)) return "";
  return "This address (" + hostname + ") names this computer: phones in the room cannot open it. " +
    "Serve the page on the room's network with ./build.sh serve -addr 0.0.0.0 and open it by this computer's address, " +
    "or publish ./build.sh dist on a web host.";
}
