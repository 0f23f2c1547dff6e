/**
 * The pieces every plot shares: linear scales with round tick values, axes, a frame, chain
 * colours, and compact number formatting (one decimal of a pixel is plenty and keeps files small).
 */
import { logTicks, niceTicks } from "./ticks.ts";

/** Colours of chains 1, 2, …, distinguishable and readable on white (cycled past eight). */
export const CHAIN_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"];
/** Colour of divergent transitions. */
export const DIVERGENT_COLOR = "#d62728";

/** The colour of chain `c` (0-based). */
export function chainColor(c: number): string {
  return CHAIN_COLORS[c % CHAIN_COLORS.length]!;
}

/** A pixel coordinate with at most one decimal. */
export function px(x: number): string {
  return String(Math.round(x * 10) / 10);
}

/** Text made safe for HTML and SVG. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * A map from [d0, d1] to [r0, r1], linear or (`log`) linear in log10 of the value for a domain of
 * positive values; a degenerate domain is widened so that it still maps.
 */
export class Scale {
  readonly d0: number;
  readonly d1: number;
  constructor(
    d0: number,
    d1: number,
    readonly r0: number,
    readonly r1: number,
    readonly log = false,
  ) {
    if (log && !(d0 > 0 && d1 > 0)) [d0, d1] = [Math.max(d0, 1e-300), Math.max(d1, 1e-300)];
    if (!(Number.isFinite(d0) && Number.isFinite(d1))) [d0, d1] = log ? [1, 10] : [0, 1];
    if (log && d1 / d0 <= 1 + 1e-12) [d0, d1] = [d0 / 1.1, d1 * 1.1];
    else if (d1 - d0 <= Math.abs(d0) * 1e-12 || d1 === d0) {
      const pad = d0 === 0 ? 1 : Math.abs(d0) * 0.01;
      [d0, d1] = [d0 - pad, d1 + pad];
    }
    this.d0 = d0;
    this.d1 = d1;
  }

  /** Where x lands (for a log scale, where log10(x) lands; nothing that is not positive lands). */
  at(x: number): number {
    if (this.log) return this.r0 + ((Math.log10(x) - Math.log10(this.d0)) / (Math.log10(this.d1) - Math.log10(this.d0))) * (this.r1 - this.r0);
    return this.r0 + ((x - this.d0) / (this.d1 - this.d0)) * (this.r1 - this.r0);
  }

  /** About `count` round values inside the domain (1, 2 or 5 times a power of ten apart, or powers of ten on a log scale), at least two. */
  ticks(count = 5): number[] {
    return this.log ? logTicks(this.d0, this.d1, count) : niceTicks(this.d0, this.d1, count);
  }
}

/** Min and max of the finite values, or [0, 1] when there are none. */
export function extent(values: Iterable<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

/** The domain widened by `fraction` of its width on each side (of its width in log10 for a `log` axis), so lines do not run along the frame. */
export function padded([lo, hi]: [number, number], fraction = 0.04, log = false): [number, number] {
  if (log && lo > 0 && hi > 0) {
    const r = (hi / lo) ** fraction;
    return [lo / r, hi * r];
  }
  const w = hi - lo;
  return [lo - w * fraction, hi + w * fraction];
}

/** A tick label: short, without float noise. */
export function tickLabel(v: number): string {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(1);
  return String(Number(v.toPrecision(4)));
}

/** The plotting area of a panel: its box and its scales. */
export interface Frame {
  readonly x: Scale;
  readonly y: Scale;
  readonly left: number;
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  /** The left margin it was made with: where the panel's edge is, for the y axis label. */
  readonly marginLeft: number;
}

/** A frame with margins for axes inside a width × height panel at (ox, oy). */
export function frame(
  xDomain: [number, number], yDomain: [number, number], width: number, height: number,
  margin = { left: 44, right: 8, top: 22, bottom: 22 }, ox = 0, oy = 0, log: { readonly x?: boolean; readonly y?: boolean } = {},
): Frame {
  const left = ox + margin.left;
  const right = ox + width - margin.right;
  const top = oy + margin.top;
  const bottom = oy + height - margin.bottom;
  return {
    x: new Scale(xDomain[0], xDomain[1], left, right, log.x ?? false),
    y: new Scale(yDomain[0], yDomain[1], bottom, top, log.y ?? false),
    left, top, right, bottom, marginLeft: margin.left,
  };
}

/** What `axes` draws besides the box. */
export interface AxesOptions {
  readonly title?: string;
  /** Room for the title from the box's left edge (default: the box's width and 8 px): a longer one is cut with "…", whole in its tooltip. */
  readonly titleWidth?: number;
  /** What the horizontal and vertical axes measure, written under and left of the box. */
  readonly xLabel?: string;
  readonly yLabel?: string;
  readonly xTicks?: number;
  readonly yTicks?: number;
  readonly grid?: boolean;
  readonly xLabels?: boolean;
  readonly yLabels?: boolean;
}

/** Distance from the box to the axis labels: below the tick labels, left of them. */
export const X_LABEL_OFFSET = 29;
export const Y_LABEL_GAP = 12;

/**
 * Axes with tick labels, a light grid, a box, axis labels and an optional title, as SVG
 * elements. The y label sits Y_LABEL_GAP px from the panel's left edge, clear of the tick labels
 * whose width the left margin was chosen for.
 */
export function axes(f: Frame, opts: AxesOptions = {}): string {
  const parts: string[] = [];
  const grid = opts.grid ?? true;
  // A count of 0 leaves that axis without ticks, for axes whose positions are rows, not values.
  for (const v of opts.yTicks === 0 ? [] : f.y.ticks(opts.yTicks ?? 4)) {
    const y = px(f.y.at(v));
    if (grid) parts.push(`<line class="grid" x1="${px(f.left)}" x2="${px(f.right)}" y1="${y}" y2="${y}"/>`);
    if (opts.yLabels ?? true) parts.push(`<text class="tick y" x="${px(f.left - 4)}" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(v)}</text>`);
  }
  for (const v of opts.xTicks === 0 ? [] : f.x.ticks(opts.xTicks ?? 5)) {
    const x = px(f.x.at(v));
    if (grid) parts.push(`<line class="grid" x1="${x}" x2="${x}" y1="${px(f.top)}" y2="${px(f.bottom)}"/>`);
    if (opts.xLabels ?? true) parts.push(`<text class="tick x" x="${x}" y="${px(f.bottom + 15)}" text-anchor="middle">${tickLabel(v)}</text>`);
  }
  parts.push(`<rect class="box" x="${px(f.left)}" y="${px(f.top)}" width="${px(f.right - f.left)}" height="${px(f.bottom - f.top)}"/>`);
  if (opts.title !== undefined) parts.push(fittedText("title", f.left, f.top - 7, opts.title, opts.titleWidth ?? f.right - f.left + 8, TITLE_CHAR_WIDTH));
  if (opts.xLabel !== undefined) parts.push(xAxisLabel(f, opts.xLabel));
  if (opts.yLabel !== undefined) parts.push(yAxisLabel(f, opts.yLabel, f.left - f.marginLeft + Y_LABEL_GAP));
  return parts.join("");
}

/**
 * Widths of a character of the 11 px bold titles and of the 11 px labels, a little above those of
 * the common sans-serif fonts, so that a text judged to fit does fit.
 */
export const TITLE_CHAR_WIDTH = 6.9;
export const LABEL_CHAR_WIDTH = 6.4;

/**
 * A text at (x, y) that fits in `width` px: cut with "…" when longer (at `charWidth` px a
 * character), with the whole text in a <title> child, which browsers show as its tooltip.
 */
export function fittedText(cls: string, x: number, y: number, text: string, width: number, charWidth = LABEL_CHAR_WIDTH, anchor = "start"): string {
  const fits = Math.max(1, Math.floor(width / charWidth));
  const a = anchor === "start" ? "" : ` text-anchor="${anchor}"`;
  if ([...text].length <= fits) return `<text class="${cls}" x="${px(x)}" y="${px(y)}"${a}>${escapeXml(text)}</text>`;
  const cut = [...text].slice(0, Math.max(1, fits - 1)).join("").trimEnd() + "…";
  return `<text class="${cls}" x="${px(x)}" y="${px(y)}"${a}><title>${escapeXml(text)}</title>${escapeXml(cut)}</text>`;
}

/** The label of a horizontal axis, centred under its tick labels. */
export function xAxisLabel(f: Frame, label: string): string {
  return `<text class="axis-label x" x="${px((f.left + f.right) / 2)}" y="${px(f.bottom + X_LABEL_OFFSET)}" text-anchor="middle">${escapeXml(label)}</text>`;
}

/** The label of a vertical axis, turned a quarter left, centred beside the box at `x`. */
export function yAxisLabel(f: Frame, label: string, x: number): string {
  const y = (f.top + f.bottom) / 2;
  // Longer than the box and a little more, it is cut with "…" (whole in its tooltip) rather than run off the panel.
  const fits = Math.max(2, Math.floor((f.bottom - f.top + 24) / LABEL_CHAR_WIDTH));
  const chars = [...label];
  const text = chars.length <= fits ? escapeXml(label) : `<title>${escapeXml(label)}</title>${escapeXml(chars.slice(0, fits - 1).join("").trimEnd())}…`;
  return `<text class="axis-label y" x="${px(x)}" y="${px(y)}" text-anchor="middle" dominant-baseline="middle" transform="rotate(-90 ${px(x)} ${px(y)})">${text}</text>`;
}

/**
 * A legend of chain colours in one row ending at `right`, on the baseline `y`: "chain ━ 1 ━ 2 …".
 * Past eight chains the colours repeat, so the legend says so instead of listing them all.
 */
export function chainLegend(chains: number, right: number, y: number): string {
  const shown = Math.min(chains, CHAIN_COLORS.length);
  const item = 26;
  const start = right - shown * item;
  const parts = [`<text class="legend" x="${px(start - 4)}" y="${px(y)}" text-anchor="end">${chains > shown ? `chains (colours repeat every ${shown})` : chains === 1 ? "chain" : "chains"}</text>`];
  for (let c = 0; c < shown; c++) {
    const x = start + c * item;
    parts.push(`<line class="legend-swatch" stroke="${chainColor(c)}" stroke-width="3" x1="${px(x)}" x2="${px(x + 10)}" y1="${px(y - 4)}" y2="${px(y - 4)}"/>`);
    parts.push(`<text class="legend" x="${px(x + 13)}" y="${px(y)}">${c + 1}</text>`);
  }
  return `<g class="chain-legend" data-chains="${chains}">${parts.join("")}</g>`;
}

/** An <svg> element of the given size, with a class and data attributes for tests and styling. */
export function svg(width: number, height: number, cls: string, content: string, data: Record<string, string> = {}): string {
  const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${escapeXml(v)}"`).join("");
  return `<svg class="${cls}"${attrs} width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">${content}</svg>`;
}

/** A polyline path ("M x y L x y …") through the points. */
export function linePath(xs: ArrayLike<number>, ys: ArrayLike<number>): string {
  const parts: string[] = [];
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(ys[i]!)) continue;
    parts.push(`${parts.length === 0 ? "M" : "L"}${px(xs[i]!)} ${px(ys[i]!)}`);
  }
  return parts.join("");
}

/** Indices 0..n-1 thinned evenly to at most `max` (all of them when n ≤ max). */
export function thinIndices(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  for (let k = 0; k < max; k++) out.push(Math.round((k * (n - 1)) / (max - 1)));
  return out;
}

/** Counts of `values` in `bins` equal bins over [lo, hi]. */
export function histogram(values: ArrayLike<number>, lo: number, hi: number, bins: number): number[] {
  const counts = new Array<number>(bins).fill(0);
  const w = (hi - lo) / bins;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    const b = w > 0 ? Math.min(bins - 1, Math.max(0, Math.floor((v - lo) / w))) : 0;
    counts[b]!++;
  }
  return counts;
}
