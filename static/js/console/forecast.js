/* The offline forecast: what the console shows while its calls wait in the queue.
 *
 * Only what cannot disagree with the server once the calls are accepted (issue 10, item 2): the
 * score (a goal adds one), the clock (pause, resume, set; a half's start and end), the cards, who is
 * on the field (substitutions where the last known `legal` allowed them, injuries, sendings-off) and
 * the coin toss's ends. It decides no rule (issue 28 item 6, D340): what a card does to a player and
 * where a half's start or end leads are the engine's answers (`opts.rules`, the page data's `forecast`:
 * qalisball/rules/forecast.py); a card or a half's call the engine has no answer for stays "to be
 * ruled". Everything the engine rules on — the restart, possession, the phase after the second half,
 * what is legal next — is "to be ruled" (`ruling: true`, `legal: null`) until the server answers.
 *
 * Pure: no DOM, no clock (`opts.now` is the server's time as the page estimates it), so Node runs
 * it too (tests/forecast_runner.mjs, tests/test_forecast_equals_server.py).
 */

const HALVES = ["first_half", "second_half"];

/* `state`: the server's public state; `bodies`: the calls not yet in it, in order, as posted.
 * `opts`: {now, rules} (`rules`: the engine's answers, qalisball/rules/forecast.py). Returns a new
 * state-like object; `state` is not changed. */
export function forecast(state, bodies, opts = {}) {
  if (!bodies.length) return state;
  const s = JSON.parse(JSON.stringify(state));
  const legal = state.legal || null;
  const now = opts.now === undefined ? s.server_time_ms : opts.now;
  const clock = readClock(s, legal, now);
  const rules = opts.rules || {};

  // The last known `legal` describes the state before the first waiting call only.
  let legalKnown = !!legal;
  for (const b of bodies) {
    switch (b.type) {
      case "goal":
        s.score[b.team] += 1;
        break;
      case "card":
        card(rules, s.teams[b.team], b.player, b.color);
        break;
      case "foul":
        if (b.card && b.player !== null && b.player !== undefined) card(rules, s.teams[b.team], b.player, b.card);
        break;
      case "substitution":
        if (!legalKnown || allowed(legal, b.out === null || b.out === undefined ? "bring_on" : "substitution", b.team)) {
          substitute(s.teams[b.team], b.out, b["in"]);
        }
        break;
      case "injury":
        leave(s.teams[b.team], b.player, "injured");
        break;
      case "clock":
        if (b.action === "pause") clock.running = false;
        if (b.action === "resume") clock.running = true;
        if (b.action === "set") clock.elapsed = Math.min(b.elapsed_ms, clock.length);
        break;
      case "coin_toss":
        s.kickoff_team = b.kickoff;
        s.ends = { home: b.home_end, away: b.home_end === "x0" ? "xL" : "x0" };
        break;
      case "period_start":
      case "period_end":
        halfCall(s, clock, rules, b.type);
        break;
      case "abandon":
        s.phase = "abandoned";
        clock.running = false;
        break;
      default:
        break; // restarts, possession, the shootout: to be ruled
    }
    legalKnown = false;
  }

  const half = HALVES.indexOf(s.phase) >= 0;
  const up = half && clock.elapsed >= clock.length;
  s.clock = { running: clock.running && !up, elapsed_ms: clock.elapsed, length_ms: clock.length };
  s.time_up = up;
  s.server_time_ms = now;
  s.ball = "dead";
  s.restart = null;
  s.restart_end = null;
  s.possession = null;
  s.attacking = false;
  s.return_countdown_ms = null;
  s.legal = null;
  s.ruling = true;
  for (const t of ["home", "away"]) {
    const ts = s.teams[t];
    ts.short = Math.max(0, (s.starters || ts.on_field.length) - ts.on_field.length);
    ts.may_substitute = null; // to be ruled
  }
  return s;
}

/* The clock as the engine keeps it: a half's clock still runs after its time is up (the public state
 * shows it stopped); the last known `legal` tells, since pausing is allowed exactly when it runs. */
function readClock(s, legal, now) {
  const c = s.clock;
  const half = HALVES.indexOf(s.phase) >= 0;
  let running = c.running;
  if (half && s.time_up && !running) running = legal ? allowed(legal, "pause", null) : true;
  let elapsed = c.elapsed_ms;
  if (c.running) elapsed = Math.min(elapsed + Math.max(0, now - s.server_time_ms), c.length_ms);
  return { running: running, elapsed: elapsed, length: c.length_ms };
}

/* Whether `legal` allowed `call` (for `team`, where the call names one). */
export function allowed(legal, call, team) {
  const v = legal && legal.calls ? legal.calls[call] : undefined;
  if (v === true) return true;
  if (v && typeof v === "object") return team ? v[team] === true : v.home === true || v.away === true;
  return false;
}

/* A card, as the engine answers it for the player's standing (`rules.cards`, 9.3): cautioned, sent off,
 * or not known (refused, or no answer: to be ruled, nothing shown). */
function card(rules, ts, n, color) {
  const standing = ts.sent_off.indexOf(n) >= 0 ? "sent_off" : ts.yellow.indexOf(n) >= 0 ? "yellow" : "clean";
  const after = ((rules.cards || {})[standing] || {})[color];
  if (!after || after === standing) return;
  if (after === "yellow") {
    ts.yellow.push(n);
    ts.yellow.sort((a, b) => a - b);
  } else if (after === "sent_off") {
    leave(ts, n, "sent_off");
  }
}

/* A half's start or end, where the engine says it leads from this phase (`rules.phases`, 3.1): its phase,
 * period and clock; the ends, when they switch, are shown again once the server says so. Without an
 * answer for the phase the call stays to be ruled; with no phase in the answer (the end of the second
 * half: finished or a shootout, by the score) the clock stops and the server says which. */
function halfCall(s, clock, rules, call) {
  const next = ((rules.phases || {})[s.phase] || {})[call];
  if (!next) return;
  if (next.phase) {
    s.phase = next.phase;
    s.period = next.period;
  }
  if (next.ends_switch) s.ends = null;
  Object.assign(clock, { running: next.clock.running, elapsed: next.phase ? 0 : clock.elapsed, length: next.clock.length_ms });
}

function leave(ts, n, list) {
  if (list === "sent_off") {
    ts.sent_off.push(n);
    ts.injured = (ts.injured || []).filter((x) => x !== n);
  } else if (ts.on_field.indexOf(n) >= 0) {
    (ts.injured = ts.injured || []).push(n);
  }
  ts.on_field = ts.on_field.filter((x) => x !== n);
  ts.bench = ts.bench.filter((x) => x !== n);
  if (list === "injured") ts.bench.push(n);
  ts.bench.sort((a, b) => a - b);
}

function substitute(ts, out, comingOn) {
  const i = out === null || out === undefined ? -1 : ts.on_field.indexOf(out);
  if (out !== null && out !== undefined && i < 0) return; // not on the field: nothing to show
  if (i >= 0) ts.on_field[i] = comingOn;
  else ts.on_field.push(comingOn);
  ts.bench = ts.bench.filter((x) => x !== comingOn);
  if (i >= 0) ts.bench.push(out);
  ts.bench.sort((a, b) => a - b);
  ts.injured = (ts.injured || []).filter((x) => x !== comingOn);
}
