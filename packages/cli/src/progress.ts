/**
 * Progress on stderr while sampling: one line per chain (warmup or sampling, iterations, percent)
 * and a line with the elapsed time and an ETA, redrawn in place at most ten times a second.
 * Hand-written rather than a progress-bar package: the redraw is a few ANSI escapes, the lines
 * are specific to chains and phases, and it keeps the command free of a dependency that would
 * have to be taught about both.
 */

/** Where progress goes: a stream that says whether it is a terminal. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  /** The terminal's width, read at each redraw (a terminal's stream updates it on resize). */
  readonly columns?: number;
  write(chunk: string): unknown;
}

/** Most chains shown one line each; more are folded into one line. */
const MAX_CHAIN_LINES = 8;
const REDRAW_MS = 100;

/** Per-chain progress of a run; shown only when enabled and the stream is a terminal. */
export class Progress {
  private readonly done: Int32Array;
  private readonly start = performance.now();
  private lastDraw = -Infinity;
  private linesShown = 0;
  private readonly active: boolean;
  // Off a terminal, --refresh asks for a line per update (nothing can be redrawn in place there).
  private readonly lines: boolean;

  /** `refresh` (--refresh): update every that many iterations (0: never); without it a terminal is redrawn at most ten times a second and nothing is written elsewhere. */
  constructor(
    private readonly stream: ProgressStream,
    private readonly warmup: number,
    private readonly draws: number,
    chains: number,
    enabled: boolean,
    private readonly refresh?: number,
  ) {
    this.done = new Int32Array(chains);
    this.active = enabled && refresh !== 0 && stream.isTTY === true;
    this.lines = enabled && refresh !== undefined && refresh > 0 && stream.isTTY !== true;
  }

  /** Records that `chain` finished iteration `iteration` (0-based, warmup first). */
  update(chain: number, iteration: number): void {
    const total = this.warmup + this.draws;
    const due = this.refresh === undefined || (iteration + 1) % this.refresh === 0 || iteration + 1 === total;
    if (this.lines && due && chain === this.done.length - 1) {
      // Every chain makes its iteration before the next begins, so the last chain's stands for all.
      const phase = iteration < this.warmup ? "warmup" : "sampling";
      const pct = Math.floor((100 * (iteration + 1)) / total);
      this.stream.write(`iteration ${iteration + 1} / ${total} [${String(pct).padStart(3)}%] (${phase}), ${this.done.length} chain${this.done.length === 1 ? "" : "s"}, elapsed ${duration((performance.now() - this.start) / 1000)}\n`);
    }
    if (!this.active) return;
    this.done[chain] = iteration + 1;
    if (!due) return;
    const now = performance.now();
    if (this.refresh !== undefined || now - this.lastDraw >= REDRAW_MS) this.draw(now);
  }

  /** Erases the progress lines (before the summary is printed). */
  finish(): void {
    if (!this.active || this.linesShown === 0) return;
    this.stream.write(`\x1b[${this.linesShown}A` + "\x1b[2K\n".repeat(this.linesShown) + `\x1b[${this.linesShown}A`);
    this.linesShown = 0;
  }

  private draw(now: number): void {
    this.lastDraw = now;
    // A line longer than the terminal wraps onto a second row, and moving up one row per line
    // would then leave the wrapped part behind at every redraw: lines are fitted to the width.
    const lines = progressLines(this.done, this.warmup, this.draws, (now - this.start) / 1000, this.stream.columns);
    const up = this.linesShown > 0 ? `\x1b[${this.linesShown}A` : "";
    // Erasing to the end of the screen (ESC [J) also clears what a resize left below the lines.
    this.stream.write(up + "\x1b[J" + lines.map((l) => `\x1b[2K${l}\n`).join(""));
    this.linesShown = lines.length;
  }
}

/**
 * The progress lines for iterations done per chain after `elapsed` seconds, each shorter than
 * `columns` when given (the bar goes first, then the padding, then the line is cut).
 */
export function progressLines(done: ArrayLike<number>, warmup: number, draws: number, elapsed: number, columns?: number): string[] {
  const total = warmup + draws;
  const chains = done.length;
  const lines: string[] = [];
  const shown = chains <= MAX_CHAIN_LINES ? chains : MAX_CHAIN_LINES - 1;
  for (let c = 0; c < shown; c++) lines.push(chainLine(`chain ${c + 1}`, done[c]!, warmup, total));
  if (shown < chains) {
    let least = Infinity;
    for (let c = shown; c < chains; c++) least = Math.min(least, done[c]!);
    lines.push(chainLine(`chains ${shown + 1}-${chains}`, least, warmup, total));
  }
  let sum = 0;
  for (let c = 0; c < chains; c++) sum += done[c]!;
  const fraction = total > 0 && chains > 0 ? sum / (total * chains) : 1;
  const eta = fraction > 0 ? (elapsed * (1 - fraction)) / fraction : NaN;
  lines.push(`elapsed ${duration(elapsed)}, ETA ${Number.isFinite(eta) ? duration(eta) : "--"}`);
  if (columns === undefined || !(columns > 0)) return lines;
  // The last column is left free: some terminals wrap as soon as it is written.
  const width = Math.max(1, Math.floor(columns) - 1);
  return lines.map((l) => {
    if (l.length <= width) return l;
    const bare = l.replace(/ \[[#.]*\]/, "");
    if (bare.length <= width) return bare;
    const tight = bare.replace(/ {2,}/g, " ");
    return tight.length <= width ? tight : tight.slice(0, width);
  });
}

function chainLine(label: string, done: number, warmup: number, total: number): string {
  const phase = done < warmup || (done === warmup && warmup === total) ? "warmup  " : "sampling";
  const width = 20;
  const filled = total > 0 ? Math.round((done / total) * width) : width;
  const bar = "#".repeat(filled) + ".".repeat(width - filled);
  const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
  return `${label.padEnd(12)} ${phase} [${bar}] ${String(done).padStart(String(total).length)}/${total} ${String(pct).padStart(3)}%`;
}

/** Seconds as "4.2s", "3m07s" or "1h02m". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}
