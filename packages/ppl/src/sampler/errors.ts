/**
 * Typed sampler errors. Messages name the chain 1-based (as Stan and the CSV
 * files do) and say what to check.
 */

/** No finite starting point was found (or a given one was not finite). */
export class InitializationError extends Error {
  /** 0-based index of the chain that failed. */
  readonly chain: number;
  constructor(chain: number, message: string) {
    super(`chain ${chain + 1}: ${message}`);
    this.name = "InitializationError";
    this.chain = chain;
  }
}

/** The step-size search ran off to 0 or to infinity. */
export class StepSizeError extends Error {
  readonly chain: number;
  constructor(chain: number, message: string) {
    super(`chain ${chain + 1}: ${message}`);
    this.name = "StepSizeError";
    this.chain = chain;
  }
}

/** The adapted metric was not finite or not positive definite. */
export class AdaptationError extends Error {
  readonly chain: number;
  constructor(chain: number, message: string) {
    super(`chain ${chain + 1}: ${message}`);
    this.name = "AdaptationError";
    this.chain = chain;
  }
}

/** An option passed to the sampler is out of range or mis-shaped. */
export class SamplerOptionError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "SamplerOptionError";
  }
}
