/**
 * Round tick values for an axis, by the rule of d3-array's `ticks` (a step of 1, 2 or 5 times a
 * power of ten, the one nearest to span / count on a log scale), written out here rather than
 * taken as a dependency because it is the only piece of d3 the report needs. One change: an axis
 * always gets at least two ticks, since one tick alone gives neither the scale nor the direction.
 */

// The geometric midpoints between 1, 2, 5 and 10: a raw step is rounded to the nearest nice one.
const E10 = Math.sqrt(50);
const E5 = Math.sqrt(10);
const E2 = Math.sqrt(2);

/** The nice step (1, 2 or 5 × 10^k) nearest to `span / count`. */
export function tickStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = Math.floor(Math.log10(raw));
  const error = raw / 10 ** power;
  const factor = error >= E10 ? 10 : error >= E5 ? 5 : error >= E2 ? 2 : 1;
  return factor * 10 ** power;
}

/** The next smaller nice step: 5 → 2 → 1 → 0.5 (times the same power of ten). */
function smallerStep(step: number): number {
  const power = 10 ** Math.floor(Math.log10(step) + 1e-9);
  const factor = Math.round(step / power);
  return factor === 5 ? 2 * power : factor === 2 ? power : 0.5 * power;
}

/**
 * Multiples of a nice step inside [lo, hi], about `count` of them and never fewer than two (the
 * step shrinks until two fit). Values are computed as integer × step, or integer / (1 / step)
 * for steps below one, so that they print without float noise (0.30000000000000004).
 */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(Number.isFinite(lo) && Number.isFinite(hi)) || !(hi > lo)) return Number.isFinite(lo) ? [lo] : [];
  let step = tickStep(hi - lo, count);
  for (;;) {
    const out = multiples(lo, hi, step);
    if (out.length >= 2) return out;
    step = smallerStep(step);
  }
}

function multiples(lo: number, hi: number, step: number): number[] {
  const inverse = step < 1 ? Math.round(1 / step) : 0;
  const value = (k: number): number => (inverse > 0 ? k / inverse : k * step);
  const first = Math.ceil(inverse > 0 ? lo * inverse - 1e-9 : lo / step - 1e-9);
  const last = Math.floor(inverse > 0 ? hi * inverse + 1e-9 : hi / step + 1e-9);
  const out: number[] = [];
  for (let k = first; k <= last; k++) out.push(value(k) === 0 ? 0 : value(k));
  return out;
}

/**
 * Ticks of a log axis over [lo, hi] (both positive): the powers of ten inside, every k-th of them
 * when there are more than about `count`; where fewer than two fit, 1, 2 and 5 times the powers of
 * ten; where still fewer, the linear ticks (a domain inside one octave reads as a linear one).
 */
export function logTicks(lo: number, hi: number, count = 5): number[] {
  if (!(lo > 0 && hi > lo && Number.isFinite(hi))) return niceTicks(lo, hi, count);
  const first = Math.ceil(Math.log10(lo) - 1e-9);
  const last = Math.floor(Math.log10(hi) + 1e-9);
  const decades = last - first + 1;
  if (decades >= 2) {
    const every = Math.max(1, Math.ceil(decades / Math.max(2, count)));
    const out: number[] = [];
    for (let e = first; e <= last; e += every) out.push(power(e));
    if (out.length >= 2) return out;
  }
  const out: number[] = [];
  for (let e = first - 1; e <= last; e++) for (const m of [1, 2, 5]) {
    const v = m * power(e);
    if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
  }
  return out.length >= 2 ? out : niceTicks(lo, hi, count);
}

// 10^e without float noise: 10 ** -3 is 0.0010000000000000002, 1 / 10 ** 3 is 0.001.
function power(e: number): number {
  return e >= 0 ? 10 ** e : 1 / 10 ** -e;
}
