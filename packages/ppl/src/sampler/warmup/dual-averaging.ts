/**
 * Nesterov dual averaging of log step size (Hoffman & Gelman 2014, §3.2), as
 * Stan's stepsize_adaptation: targets a mean accept_stat of δ.
 */

/** Dual-averaging settings (Stan's defaults: δ 0.8, γ 0.05, κ 0.75, t0 10). */
export interface DualAveragingSettings {
  readonly delta: number;
  readonly gamma: number;
  readonly kappa: number;
  readonly t0: number;
}

/** Stan's default dual-averaging settings. */
export const defaultDualAveraging: DualAveragingSettings = { delta: 0.8, gamma: 0.05, kappa: 0.75, t0: 10 };

/** The numbers dual averaging carries from one iteration to the next. */
export interface DualAveragingState {
  readonly mu: number;
  readonly counter: number;
  readonly sBar: number;
  readonly xBar: number;
}

/**
 * counter^−κ for counter = 0, 1, 2, … of one κ, shared by every chain's adaptation: Math.pow costs
 * more than the rest of an update (a thousand chains' updates every warmup iteration), and every
 * chain asks for the same few thousand values. Math.pow is a pure function, so the values are its own.
 */
const counterPowers = new Map<number, number[]>();

function powersOf(kappa: number): number[] {
  let powers = counterPowers.get(kappa);
  if (!powers) counterPowers.set(kappa, (powers = []));
  return powers;
}

/** Dual-averaging state for one chain. */
export class DualAveraging {
  readonly settings: DualAveragingSettings;
  /** Shrinkage target for log ε (Stan sets log(10·ε)). */
  mu: number;
  private counter = 0;
  private sBar = 0;
  private xBar = 0;
  private readonly powers: number[];

  constructor(mu: number, settings: DualAveragingSettings = defaultDualAveraging) {
    this.mu = mu;
    this.settings = settings;
    this.powers = powersOf(settings.kappa);
  }

  /** Forgets the history (after a metric update), keeping mu. */
  restart(): void {
    this.counter = 0;
    this.sBar = 0;
    this.xBar = 0;
  }

  /** The current state, for a runner that continues the same updates elsewhere (the GPU sampler). */
  snapshot(): DualAveragingState {
    return { mu: this.mu, counter: this.counter, sBar: this.sBar, xBar: this.xBar };
  }

  /** Continues from a state that snapshot() gave. */
  restore(s: DualAveragingState): void {
    this.mu = s.mu;
    this.counter = s.counter;
    this.sBar = s.sBar;
    this.xBar = s.xBar;
  }

  /** Takes one accept statistic and returns the step size for the next iteration. */
  learn(acceptStat: number): number {
    const { delta, gamma, kappa, t0 } = this.settings;
    this.counter++;
    const stat = acceptStat > 1 ? 1 : acceptStat;
    const eta = 1 / (this.counter + t0);
    this.sBar = (1 - eta) * this.sBar + eta * (delta - stat);
    const x = this.mu - (this.sBar * Math.sqrt(this.counter)) / gamma;
    const powers = this.powers;
    while (powers.length <= this.counter) powers.push(Math.pow(powers.length, -kappa));
    const xEta = powers[this.counter]!;
    this.xBar = (1 - xEta) * this.xBar + xEta * x;
    return Math.exp(x);
  }

  /** The final step size: exp of the averaged iterate x̄. */
  finalStepSize(): number {
    return Math.exp(this.xBar);
  }
}
