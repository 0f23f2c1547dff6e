// The options of `ppl sample`, a module of their own: the sample command and the prior draws it
// hands over to (prior.ts) both read them.
import type { BackendRequest } from "../choose-backend.ts";

/** The options of `ppl sample`, as parsed and range-checked by the command line. */
export interface SampleCommandOptions extends BackendRequest {
  readonly data?: string;
  readonly chains: number;
  /** Threads of the CPU sampler (default: one per core, at most the chains). */
  readonly threads?: number;
  readonly warmup: number;
  readonly draws: number;
  readonly seed?: number;
  readonly metric: "diag" | "dense";
  readonly adaptDelta: number;
  readonly maxDepth: number;
  /** The radius of random initial values, or the path of a JSON file of initial values. */
  readonly init: number | string;
  readonly output: string;
  readonly quiet: boolean;
  readonly strict: boolean;
  /** Write log_lik columns (the pointwise log-likelihood) after the reported values. */
  readonly logLik?: boolean;
  /** Write the predictive draws of every observe term (<field>_rep) after the generated quantities. */
  readonly predictive?: boolean;
  /** Draw from the prior without MCMC (see commands/prior.ts). */
  readonly prior?: boolean;
  /** Write the warmup draws too, before the adaptation block (CmdStan's save_warmup). */
  readonly saveWarmup?: boolean;
  /** Keep every thin-th iteration (1). */
  readonly thin?: number;
  /** NUTS (the default), static HMC with `steps` leapfrog steps, or ChEES-HMC (many chains adapted together). */
  readonly algorithm?: "nuts" | "hmc" | "chees" | "meads";
  /** Superchains for nested R-hat: groups of chains started from one initial point (must divide the chains). */
  readonly superchains?: number;
  /** chain-N.csv per chain, one draws.csv with a chain__ column (single), or single beyond ONE_FILE_CHAINS chains (auto, the default). */
  readonly outputFormat?: "auto" | "chains" | "single";
  /** Stop sampling once every shown parameter's bulk ESS reaches this and its (nested) R-hat is below 1.01. */
  readonly targetEss?: number;
  /** The cap on draws per chain with targetEss (default: draws). */
  readonly maxDraws?: number;
  readonly steps?: number;
  /** The initial step size (1). */
  readonly stepsize?: number;
  /** Path of CmdStan's JSON metric file ({"inv_metric": …}). */
  readonly invMetric?: string;
  /** Progress every that many iterations (0: none). */
  readonly refresh?: number;
  /** 0-based id of the first chain: chains and their random streams are numbered from it (files chain-(K+1).csv …). */
  readonly firstChain?: number;
  /** Type-check the model file before the run (as `ppl check`). */
  readonly typecheck?: boolean;
  /** Save a checkpoint (DIR/checkpoint.json) every N iterations, or N seconds written `Ns`. */
  readonly checkpointEvery?: string;
  /** Continue the run in --output from its checkpoint. */
  readonly resume?: boolean;
  /** What the printed summary shows (Stan's rules: a base name selects all its elements); by default all but log_lik and <field>_rep. */
  readonly variables?: readonly string[];
}
