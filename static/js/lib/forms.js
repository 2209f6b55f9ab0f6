/* The organiser's forms (competitions, a competition's page, venue screens): their message line and their
 * writes, with the organiser's cookie and its CSRF token (D53, D54). */
import { data } from "./page.js";
import { show } from "./dom.js";

/* Headers of a request to our API from a page opened with a token: the token itself is in an HttpOnly
 * cookie the browser sends (D53); the page holds only that cookie's CSRF token (D54). */
export function authHeaders(extra) {
  const h = {};
  if (data.csrf) h["X-CSRF-Token"] = data.csrf;
  Object.keys(extra || {}).forEach((k) => { h[k] = extra[k]; });
  return h;
}

/* A form's message line: what the server said, in red when it refused. */
export function formSay(form, text, bad) {
  const p = form.querySelector(".form-msg");
  if (!p) return;
  p.textContent = text;
  p.classList.toggle("bad", !!bad);
}

/* A write resolving to {status, answer}; a token the server no longer accepts brings the sign-in form back. */
export function organiserCall(method, url, body, contentType) {
  const headers = authHeaders(contentType ? { "Content-Type": contentType } : {});
  return fetch(url, { method: method, headers: headers, body: body }).then((r) =>
    r.json().catch(() => null).then((answer) => {
      if (r.status === 401 || r.status === 403) { show("login-error", true); show("login", true); }
      return { status: r.status, answer: answer };
    }));
}
