/* The offline shell (issue 13): a service worker that keeps the last copy of every page and asset it
 * served, so that a console reloaded without network opens with its queue (the queue itself is in
 * localStorage; queue.js sends it once, in order, when the network returns), and the scoreboard and phone
 * pages open with their last state. Network first, the cache only when the network fails: a page is
 * never older than the server when the server can be reached. The API and Socket.IO are never cached.
 * A page's first visit happens before this worker exists, so the worker sees none of its requests: it keeps
 * the page and the assets a page lists in a "keep" message (common.js sends it when the page was not served
 * through the worker), so one online visit is enough (issue 19, D171). */
"use strict";
// v2: pages are kept only under addresses without tokens (D53); v1 copies may hold a link's token.
var CACHE = "qalisball-shell-v2";

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) { return n !== CACHE; }).map(function (n) { return caches.delete(n); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function cacheable(url) {
  if (url.origin !== self.location.origin) return false;
  if (url.pathname.indexOf("/api/") === 0 || url.pathname.indexOf("/socket.io/") === 0) return false;
  // Never a token on this device's disk: no link that carries one, and not the officials' page, whose
  // QR codes are the role tokens (the organiser opens it online).
  if (url.searchParams.has("token") || /\/officials$/.test(url.pathname)) return false;
  return url.pathname.indexOf("/static/") === 0 || url.pathname.indexOf("/matches/") === 0;
}

/* Fetch and keep a page (under the address it shows now, D53's ?role=, never the QR link's ?token=, which
 * cacheable() refuses) and the assets it loaded. The page is put last, once its assets are kept: a page
 * without its scripts would open offline as a dead console. One asset's failure does not lose the others. */
function fetched(u) {
  return fetch(u, { credentials: "same-origin" }).then(function (response) {
    // Only a real answer: never a redirect to the sign-in page or an error in place of the console.
    return response.ok && !response.redirected ? [u, response] : null;
  }).catch(function () { return null; });
}

function keepable(urls) {
  return urls.filter(function (u) {
    try { return typeof u === "string" && cacheable(new URL(u, self.location.href)); } catch (e) { return false; }
  });
}

function keep(page, assets) {
  return caches.open(CACHE).then(function (cache) {
    var put = function (hit) { return hit && cache.put(hit[0], hit[1]); };
    return Promise.all(keepable(assets).map(function (u) { return fetched(u).then(put); }))
      .then(function () { return Promise.all(keepable([page]).map(function (u) { return fetched(u).then(put); })); });
  });
}

self.addEventListener("message", function (event) {
  var data = event.data || {};
  // The page is the sender's own address (never one the message names), its assets the sender's list.
  if (data.type === "keep" && Array.isArray(data.assets) && event.source && event.source.url) {
    event.waitUntil(keep(event.source.url, data.assets.slice(0, 200)));
  }
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (!cacheable(url)) return;
  event.respondWith(
    fetch(request).then(function (response) {
      if (response.ok) {
        var copy = response.clone();
        caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
      }
      return response;
    }).catch(function () {
      // Offline: the last copy of this very URL (a console names its role, ?role=: its own copy).
      return caches.open(CACHE).then(function (cache) {
        return cache.match(request).then(function (hit) { return hit || cache.match(request, { ignoreSearch: true }); });
      }).then(function (hit) { return hit || Response.error(); });
    })
  );
});
