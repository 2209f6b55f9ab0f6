// /api/docs (issue 23): the vendored Swagger UI (static/vendor/swagger-ui) shows /api/openapi.json.
// A file of its own, not an inline script: the pages' CSP allows scripts from this site only (D49).
// No validator badge (it would send the document to a server outside), no "Try it out" by default
// (a request from here carries no token: scripts use Authorization: Bearer, D53).
window.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("swagger-ui");
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    defaultModelsExpandDepth: 0,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
