/* The page's data: the JSON the server rendered into #page-data (state, roster, translated words), read
 * once. `T` are the page's strings, `V` the vocabulary (phases, restarts, events, cards) in its language;
 * a page that embeds the event catalogue (the console) takes the catalogue's words from it (lib/catalogue.js).
 * Nothing here changes after the page has loaded. */
import { catalogueWords } from "./catalogue.js";

const el = typeof document !== "undefined" ? document.getElementById("page-data") : null;
export const data = Object.freeze(el ? JSON.parse(el.textContent) : {});
export const T = data.strings || {};
export const V = data.catalogue
  ? Object.assign({}, data.vocab, catalogueWords(data.catalogue, data.lang, data.rule_set))
  : data.vocab || {};

// Tokens kept in localStorage before they moved into HttpOnly cookies (D53): scripts must not hold them.
try {
  Object.keys(localStorage).forEach((k) => {
    if (k === "qalisball.organiser" || k.indexOf("qalisball.token.") === 0) localStorage.removeItem(k);
  });
} catch (e) { /* no storage (private mode, Node): nothing kept */ }
