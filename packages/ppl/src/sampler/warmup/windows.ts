/**
 * Stan's windowed adaptation schedule (windowed_adaptation.hpp): an initial
 * fast buffer (step size only), slow windows of doubling size that estimate
 * the metric, and a terminal fast buffer; the last slow window stretches to
 * the terminal buffer when the next doubling would not fit.
 */

/** Buffer and window sizes (Stan's defaults: 75, 50, 25). */
export interface WindowSettings {
  readonly initBuffer: number;
  readonly termBuffer: number;
  readonly baseWindow: number;
}

/** Stan's default window settings. */
export const defaultWindows: WindowSettings = { initBuffer: 75, termBuffer: 50, baseWindow: 25 };

/** Where a window schedule stands. */
export interface WindowState {
  readonly counter: number;
  readonly windowSize: number;
  readonly nextWindow: number;
}

/** The window schedule for one chain, advanced once per warmup iteration. */
export class WindowSchedule {
  readonly numWarmup: number;
  readonly initBuffer: number;
  readonly termBuffer: number;
  readonly baseWindow: number;
  /** Warmup iterations seen so far (Stan's adapt_window_counter_). */
  counter = 0;
  private windowSize: number;
  private nextWindow: number;

  constructor(numWarmup: number, settings: WindowSettings = defaultWindows) {
    if (numWarmup < 20) {
      // Stan: "No variance estimation is performed for num_warmup < 20" — all sizes 0.
      this.numWarmup = 0;
      this.initBuffer = 0;
      this.termBuffer = 0;
      this.baseWindow = 0;
    } else if (settings.initBuffer + settings.baseWindow + settings.termBuffer > numWarmup) {
      // Stan's fallback for short warmup: 15% / 75% / 10%.
      this.numWarmup = numWarmup;
      this.initBuffer = Math.floor(0.15 * numWarmup);
      this.termBuffer = Math.floor(0.1 * numWarmup);
      this.baseWindow = numWarmup - (this.initBuffer + this.termBuffer);
    } else {
      this.numWarmup = numWarmup;
      this.initBuffer = settings.initBuffer;
      this.termBuffer = settings.termBuffer;
      this.baseWindow = settings.baseWindow;
    }
    this.windowSize = this.baseWindow;
    this.nextWindow = this.initBuffer + this.windowSize - 1;
  }

  /** Whether the current iteration's draw goes into the metric estimate. */
  inWindow(): boolean {
    return (
      this.counter >= this.initBuffer &&
      this.counter < this.numWarmup - this.termBuffer &&
      this.counter !== this.numWarmup
    );
  }

  /** Whether the current iteration closes a slow window. */
  atWindowEnd(): boolean {
    return this.counter === this.nextWindow && this.counter !== this.numWarmup;
  }

  /** Moves the end of the next window (call at a window end, before advance()). */
  computeNextWindow(): void {
    const lastEnd = this.numWarmup - this.termBuffer - 1;
    if (this.nextWindow === lastEnd) return;
    this.windowSize *= 2;
    this.nextWindow = this.counter + this.windowSize;
    if (this.nextWindow !== lastEnd) {
      const nextBoundary = this.nextWindow + 2 * this.windowSize;
      if (nextBoundary >= this.numWarmup - this.termBuffer) this.nextWindow = lastEnd;
    }
  }

  /** Counts one warmup iteration. */
  advance(): void {
    this.counter++;
  }

  /** Where the schedule stands. */
  state(): WindowState {
    return { counter: this.counter, windowSize: this.windowSize, nextWindow: this.nextWindow };
  }

  /** Continues from a state that state() gave (of a schedule with the same settings). */
  restore(s: WindowState): void {
    this.counter = s.counter;
    this.windowSize = s.windowSize;
    this.nextWindow = s.nextWindow;
  }
}

/** The warmup iterations at which a slow window closes and the metric is replaced, in order. */
export function windowEnds(numWarmup: number, settings: WindowSettings = defaultWindows): number[] {
  const w = new WindowSchedule(numWarmup, settings);
  const ends: number[] = [];
  for (let t = 0; t < numWarmup; t++) {
    if (w.atWindowEnd()) {
      ends.push(t);
      w.computeNextWindow();
    }
    w.advance();
  }
  return ends;
}
