import { escapeXml, type Frame, frame, px } from "./svg.ts";

/** Height of one parameter's row in the forest, ESS and MCSE plots. */
export const ROW_HEIGHT = 18;
/** Approximate width of a character of the 11 px labels, to size the column of names. */
const CHAR_WIDTH = 6.4;

/** The layout of a plot with one row per parameter: the names on the left, the frame, the row centres. */
export interface RowLayout {
  readonly frame: Frame;
  readonly width: number;
  readonly height: number;
  /** The vertical centre of row i. */
  rowY(i: number): number;
  /** The names, right-aligned left of the box; flagged rows (e.g. over a threshold) in red. */
  names(flagged?: ReadonlySet<string>): string;
}

/**
 * Lays out rows for `names` in a panel `width` wide with room on the right (`right`, e.g. for a
 * column of numbers or a legend); the x domain is the plot's.
 */
export function rowLayout(names: readonly string[], xDomain: [number, number], width: number, right: number): RowLayout {
  const labelWidth = Math.min(220, 12 + CHAR_WIDTH * Math.max(4, ...names.map((n) => n.length)));
  const top = 30;
  const bottom = 42;
  const height = top + names.length * ROW_HEIGHT + bottom;
  const f = frame(xDomain, [0, names.length], width, height, { left: labelWidth, right, top, bottom });
  const rowY = (i: number): number => f.top + (i + 0.5) * ROW_HEIGHT;
  return {
    frame: f,
    width,
    height,
    rowY,
    names: (flagged = new Set()) =>
      names
        .map((n, i) => `<text class="row-name${flagged.has(n) ? " flag" : ""}" x="${px(f.left - 6)}" y="${px(rowY(i))}" text-anchor="end" dominant-baseline="middle">${escapeXml(n)}</text>`)
        .join(""),
  };
}
