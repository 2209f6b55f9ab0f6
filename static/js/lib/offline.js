/* The offline shell (issue 13): every match page registers the service worker (static/js/sw.js) that keeps
 * its last copy, so a console reloaded without network opens with its queue. A page the worker did not
 * serve (the first visit, or a hard reload) is unknown to it: once the page has loaded (its modules too),
 * hand the worker its address and everything it fetched, to keep (D171). */
if ("serviceWorker" in navigator && location.pathname.indexOf("/matches/") === 0) {
  const unseen = !navigator.serviceWorker.controller;
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(() => {
    if (!unseen) return;
    const send = () => {
      navigator.serviceWorker.ready.then((reg) => {
        const assets = performance.getEntriesByType("resource").map((e) => e.name);
        if (reg.active) reg.active.postMessage({ type: "keep", assets: assets });
      });
    };
    if (document.readyState === "complete") send(); else window.addEventListener("load", send);
  }).catch(() => {});
}
