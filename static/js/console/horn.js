/* The horn (issue 13): a synthesized blast (Web Audio, no sound file) at time-up and at the end of the
 * 30-s return, and a vibration at time-up where the browser has `navigator.vibrate`. The mute is
 * remembered per device (localStorage); it silences the horn only: the vibration is silent anyway and
 * is what a referee with a muted tablet still feels.
 *
 * Browsers start audio only after a gesture on the page: the context is created (or resumed) at the
 * first tap, which on a console comes long before the end of a half.
 */
const KEY = "qalisball.horn.muted";
let ctx = null;

export function muted() { return localStorage.getItem(KEY) === "1"; }
export function setMuted(on) { localStorage.setItem(KEY, on ? "1" : "0"); }

function context() {
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  if (!ctx) ctx = new AC();
  if (ctx.state === "suspended" && ctx.resume) ctx.resume();
  return ctx;
}
document.addEventListener("pointerdown", () => { if (!muted()) context(); }, { capture: true });

/* One blast of `seconds`: two detuned sawtooth tones (a horn's rasp), a quick attack and release. */
export function horn(seconds) {
  if (muted()) return false;
  const ac = context();
  if (!ac) return false;
  const length = seconds || 1.2;
  const t0 = ac.currentTime;
  const gain = ac.createGain();
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(0.5, t0 + 0.04);
  gain.gain.setValueAtTime(0.5, t0 + length - 0.15);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  gain.connect(ac.destination);
  [220, 277].forEach((f) => {
    const osc = ac.createOscillator();
    osc.type = "sawtooth";
    osc.frequency.setValueAtTime(f, t0);
    osc.connect(gain);
    osc.start(t0);
    osc.stop(t0 + length);
  });
  return true;
}

export function vibrate() {
  if (navigator.vibrate) navigator.vibrate([400, 150, 400]);
}
