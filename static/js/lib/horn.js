/* The screens' horn: synthesized (Web Audio), no sound file; muted per device (remembered). Browsers play
 * sound only after a click on the page: until then the context is "blocked". */
const KEY = "qalisball.horn.muted";
let ctx = null;

function context() {
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  if (!ctx) ctx = new AC();
  if (ctx.state === "suspended" && ctx.resume) ctx.resume().catch(() => {});
  return ctx;
}
function stored() {
  try { return localStorage.getItem(KEY); } catch (e) { return null; }
}

export function muted() { return stored() === "1"; }
export function setMuted(m) {
  try { localStorage.setItem(KEY, m ? "1" : "0"); } catch (e) { /* private mode: this page only */ }
  if (!m) context(); // a click is the gesture that lets the browser play sound
}
export function blocked() { return !!ctx && ctx.state === "suspended"; }

/* Three detuned sawtooth reeds through a low-pass filter, like an air horn; `seconds` long. */
export function play(seconds) {
  if (muted()) return false;
  const c = context();
  if (!c) return false;
  const t = c.currentTime;
  const len = seconds || 1.6;
  const gain = c.createGain();
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.45, t + 0.05);
  gain.gain.setValueAtTime(0.45, t + len - 0.2);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + len);
  const filter = c.createBiquadFilter();
  filter.type = "lowpass";
  filter.frequency.value = 1800;
  filter.connect(gain);
  gain.connect(c.destination);
  [233, 294, 349].forEach((f) => {
    const o = c.createOscillator();
    o.type = "sawtooth";
    o.frequency.value = f;
    o.connect(filter);
    o.start(t);
    o.stop(t + len);
  });
  return true;
}
