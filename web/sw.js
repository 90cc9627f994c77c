// headlab's service worker: the page keeps working without a network after
// its first visit. web/cmd/site writes it at the site's root as sw.js, with
// the build's files (every file of the site but this one, each with the
// SHA-256 of its bytes) in place of the placeholders below, so that a new
// build is a new service worker, which the browser installs on the next
// load after a deploy.
//
//   install   fetches every file past the HTTP cache (cache: "no-cache"),
//             checked against its hash (a file changed mid-deploy fails the
//             install, which the browser tries again later), into a cache
//             named for the build
//   activate  deletes the caches of other builds and takes over open pages
//   fetch     a content-hashed file (name.<12 hex>.ext) from the cache, or
//             the network; every other file from the network (revalidated,
//             so a plain static host without caching headers serves no stale
//             page after a deploy), or from the cache when the network fails.
//             A page whose own load fell back on the cache (no network, or
//             no answer within NAVIGATION_WAIT_MS) takes all its files from
//             the cache, so that it runs one build, not a mix of two.
"use strict";
const BUILD = "__HEADLAB_BUILD__";
const FILES = __HEADLAB_PRECACHE__;
const CACHE = "headlab-" + BUILD;
const HASHED = /\.[0-9a-f]{12}\.[A-Za-z0-9]+$/;
const NAVIGATION_WAIT_MS = 4000;
const offlinePages = new Set(); // client ids of pages loaded from the cache

const abs = (rel) => new URL(rel, self.location).href;

self.addEventListener("install", (e) => {
  e.waitUntil(
    caches.open(CACHE).then((cache) =>
      Promise.all(FILES.map(([rel, integrity]) => {
        const url = abs(rel === "index.html" ? "./" : rel); // as a page load asks for it
        return fetch(new Request(url, { cache: "no-cache", integrity })).then((r) => {
          if (!r.ok) throw new Error("headlab offline copy: " + rel + ": HTTP " + r.status);
          // A redirected response cannot answer a page load (Go's
          // http.FileServer redirects index.html to ./): keep its bytes only.
          return cache.put(url, r.redirected ? new Response(r.body, { status: r.status, statusText: r.statusText, headers: r.headers }) : r);
        });
      })))
      .catch((err) => caches.delete(CACHE).then(() => { throw err; }))
      .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith("headlab-") && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()));
});

self.addEventListener("message", (e) => {
  if (e.data === "build" && e.source) e.source.postMessage({ build: BUILD, offline: offlinePages.has(e.source.id) });
});

// cached returns the saved response for url. (caches.match with a
// cacheName does not create the cache, as caches.open would, after a newer
// build's worker has deleted it.)
function cached(url) {
  return caches.match(url, { cacheName: CACHE, ignoreSearch: true, ignoreVary: true })
    .then((r) => r || Promise.reject(new Error("headlab offline copy: " + url + " is not saved")));
}

// navigate answers a page load (the page's, or its canvas frame's): the
// network's, or the saved one if the network fails or is slower than
// NAVIGATION_WAIT_MS.
function navigate(e) {
  const net = fetch(e.request.url, { cache: "no-cache", credentials: "same-origin" })
    .then((r) => (r.redirected ? fetch(e.request) : r));
  const late = new Promise((resolve) => setTimeout(resolve, NAVIGATION_WAIT_MS));
  // The page itself, or a frame's (static/canvas.html), as saved.
  const url = new URL(e.request.url);
  const page = url.href.split(/[?#]/)[0] === self.registration.scope || url.pathname.endsWith("/index.html") ? abs("./") : url.origin + url.pathname;
  const fromCache = () => {
    if (e.resultingClientId) offlinePages.add(e.resultingClientId);
    return cached(page);
  };
  return Promise.race([net.then((r) => ({ r })), late.then(() => null)])
    .then((won) => (won ? won.r : fromCache().catch(() => net)))
    .catch(() => fromCache().catch(() => net));
}

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET") return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || !url.href.startsWith(self.registration.scope)) return;
  if (req.mode === "navigate") {
    e.respondWith(navigate(e));
    return;
  }
  const key = url.origin + url.pathname;
  if (HASHED.test(url.pathname) || offlinePages.has(e.clientId)) {
    e.respondWith(cached(key).catch(() => fetch(req)));
    return;
  }
  e.respondWith(fetch(new Request(req, { cache: "no-cache" })).catch((err) => cached(key).catch(() => { throw err; })));
});
