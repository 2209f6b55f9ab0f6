/* The event catalogue (GET /api/catalogue, issue 23) as a page's script reads it. A page that embeds the
 * catalogue (page data `catalogue`: the console, exactly the API's answer) takes from it the calls a role
 * may make, their keys, labels and fields, the match day's rights, the codes, and the words of events,
 * calls, roles, signers and restarts: the page carries no second copy of them. Pure functions, so that
 * Node runs them in the tests against the server's own answer. */

/* A label of the catalogue ({en, zh}) in `lang`. */
export function label(l, lang) { return l ? (l[lang] !== undefined ? l[lang] : l.en) : ""; }

/* What a rule book words differently or leaves out (V1-D10, V1-D16); 2.0's is the catalogue itself. */
function bookOf(cat, ruleSet) {
  return (cat.rule_books || {})[ruleSet] || { labels: {}, without_types: [], without_fields: [] };
}

function byName(list, key, lang) {
  const out = {};
  (list || []).forEach((x) => { out[x[key]] = label(x.label, lang); });
  return out;
}

/* The vocabulary's groups that are the catalogue's: event types, violation kinds, card colours, clock
 * actions (each a type's variants), roles, signers and restart types, in `lang`, worded by the rule book. */
export function catalogueWords(cat, lang, ruleSet) {
  const book = bookOf(cat, ruleSet);
  const worded = (name, l) => label(book.labels[name] || l, lang);
  const event = {};
  const variants = {};
  cat.events.forEach((e) => {
    event[e.type] = worded(e.type, e.label);
    variants[e.type] = {};
    e.variants.forEach((v) => { variants[e.type][v.name] = worded(v.name, v.label); });
  });
  return {
    event,
    violation: variants.violation,
    card: variants.card,
    clock: variants.clock,
    role: byName(cat.roles, "role", lang),
    signer: byName(cat.signers, "role", lang),
    restart: byName(cat.restarts, "type", lang),
  };
}

/* The console's calls `role` may make, in button order: one per variant of a type with variants, with what
 * the call builder asks for (`params`: the type's fields less the variant's, `spot`). As the server builds
 * the page's buttons from the same answer (match/pages.py console_calls). */
export function callsFor(cat, role, ruleSet, lang) {
  const book = bookOf(cat, ruleSet);
  const out = [];
  cat.events.forEach((e) => {
    if (e.group !== "call" || book.without_types.indexOf(e.type) >= 0) return;
    const params = e.fields.filter((f) => f.name !== e.variant_field && book.without_fields.indexOf(f.name) < 0);
    (e.variants.length ? e.variants : [null]).forEach((v) => {
      const src = v || e;
      if (src.who.indexOf(role) < 0) return;
      const call = v ? v.name : e.type;
      out.push({
        call,
        type: e.type,
        param: e.variant_field,
        variant: v ? v.name : null,
        label: label(book.labels[call] || src.label, lang),
        key: src.key,
        who: src.who,
        params,
        spot: src.spot,
      });
    });
  });
  return out;
}

/* Everything the console takes from the catalogue for `role`: its calls, the field that names a type's
 * variant (a violation's kind, a card's colour, a clock's action), what it may call (the clock's
 * actions as one "clock"), the keys of its calls (the clock's keys are the console's own), its match-day
 * rights (SPEC §9), what Undo never offers (M6), and the misconduct (M7) and note codes in `lang`. */
export function consoleCatalogue(cat, role, ruleSet, lang) {
  cat = cat || { events: [] }; // a page without the catalogue (Node importing a module) has no calls
  const calls = callsFor(cat, role, ruleSet, lang);
  const allowed = [];
  const keys = {};
  calls.forEach((c) => {
    const name = c.type === "clock" ? "clock" : c.call;
    if (allowed.indexOf(name) < 0) allowed.push(name);
    if (c.key && c.type !== "clock") keys[c.call] = c.key;
  });
  const may = {};
  cat.events.forEach((e) => { if (e.group === "match_day") may[e.type] = e.who.indexOf(role) >= 0; });
  const codes = (list) => (list || []).map((c) => ({ code: c.code, label: label(c.label, lang) }));
  const variantField = {};
  cat.events.forEach((e) => { if (e.variant_field) variantField[e.type] = e.variant_field; });
  return {
    calls,
    variantField,
    allowed,
    keys,
    may,
    notUndoable: cat.events.filter((e) => !e.undoable).map((e) => e.type),
    codes: codes(cat.misconduct_codes),
    noteCodes: codes(cat.note_codes),
  };
}
