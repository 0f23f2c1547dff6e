/**
 * Checkpoints of a run: where every chain stands between two iterations (position, log density
 * and gradient, step size, metric, warmup's adaptation state and windows, stuck-chain evidence),
 * with the settings that decide its draws, as text that reads back bit for bit. The random
 * streams are counter-based (Philox keyed by seed, chain, iteration and purpose), so the
 * iteration is the whole of each chain's random state: a run resumed from a checkpoint draws
 * what the run that wrote it would have drawn.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { SamplerOptionError } from "./errors.ts";
import type { ChainStats } from "./result.ts";
import type { ChainState, RunState } from "./run-state.ts";
import type { ResolvedSampleSettings } from "./settings.ts";

/** A run's state between two iterations with the settings that made it (the draws themselves are the caller's: files, onDraw). */
export interface Checkpoint {
  /** The format's version (1). */
  readonly version: 1;
  readonly settings: ResolvedSampleSettings;
  /** Every chain's state; their draws and statistics arrays are empty. */
  readonly state: RunState;
}

/** When a run saves checkpoints (SampleOptions.checkpoint), and where they go. */
export interface CheckpointOptions {
  /** Save after every this many iterations (counted from the run's start, warmup included). */
  readonly everyIterations?: number;
  /** Save when this many seconds have passed since the last save (or the start). */
  readonly everySeconds?: number;
  /** Receives each checkpoint (also one at the end of warmup); it is the caller's to keep. */
  readonly save: (checkpoint: Checkpoint) => void;
}

const EMPTY_STATS: ChainStats = {
  lp: new Float64Array(0), acceptStat: new Float64Array(0), stepSize: new Float64Array(0), treeDepth: new Float64Array(0),
  nLeapfrog: new Float64Array(0), divergent: new Float64Array(0), energy: new Float64Array(0),
};

/** A checkpoint of `state` (its arrays copied, the draws left out). */
export function checkpointOf(state: RunState, settings: ResolvedSampleSettings): Checkpoint {
  const chains: ChainState[] = state.chains.map(({ draws: _d, stats: _s, ...rest }) => ({ ...structuredClone(rest), draws: new Float64Array(0), stats: EMPTY_STATS }));
  return { version: 1, settings: { ...settings }, state: { ...state, chains } };
}

/**
 * Checks that a checkpoint continues a run of these settings and dimension: a setting that differs
 * would draw other draws, so it is refused, named with both values.
 */
export function checkResumable(checkpoint: Checkpoint, settings: ResolvedSampleSettings, dim: number): void {
  if (checkpoint.version !== 1) throw new SamplerOptionError(`resume: checkpoint version ${String(checkpoint.version)} is not one this sampler reads (1)`);
  for (const key of Object.keys(settings) as (keyof ResolvedSampleSettings)[]) {
    if (!Object.is(checkpoint.settings[key], settings[key])) {
      throw new SamplerOptionError(`resume: the checkpoint's run has ${key} = ${String(checkpoint.settings[key])}, this run ${String(settings[key])}; resume with the settings of the run that wrote it`);
    }
  }
  const q = checkpoint.state.chains[0]?.q.length;
  if (q !== dim) throw new SamplerOptionError(`resume: the checkpoint's chains have ${String(q)} unconstrained dimensions, the model ${dim}; it is a checkpoint of another model`);
}

// Typed arrays as base64 of their bytes, and the numbers JSON cannot spell (NaN, ±Infinity, −0)
// by name: the text reads back bit for bit.
const ARRAY_TAG = "$f64";
const NUMBER_TAG = "$num";

/** The checkpoint as JSON text that decodeCheckpoint reads back bit for bit. */
export function encodeCheckpoint(checkpoint: Checkpoint): string {
  return JSON.stringify(checkpoint, (_key, value: unknown) => {
    if (value instanceof Float64Array) return { [ARRAY_TAG]: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") };
    if (ArrayBuffer.isView(value)) throw new Error(`encodeCheckpoint: a ${value.constructor.name} in the state; only Float64Array is expected`);
    if (typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))) return { [NUMBER_TAG]: Object.is(value, -0) ? "-0" : String(value) };
    return value;
  });
}

/** Reads what encodeCheckpoint wrote; a text that is not a checkpoint is a SamplerOptionError. */
export function decodeCheckpoint(text: string): Checkpoint {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (_key, value: unknown) => {
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        const v = value as Record<string, unknown>;
        if (typeof v[ARRAY_TAG] === "string") {
          const bytes = Buffer.from(v[ARRAY_TAG], "base64");
          return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
        }
        if (typeof v[NUMBER_TAG] === "string") return v[NUMBER_TAG] === "-0" ? -0 : Number(v[NUMBER_TAG]);
      }
      return value;
    });
  } catch (e) {
    throw new SamplerOptionError(`resume: the checkpoint is not valid JSON (${e instanceof Error ? e.message : String(e)}); it was not written by this sampler, or was cut short`);
  }
  const cp = parsed as Partial<Checkpoint> | null;
  if (cp === null || typeof cp !== "object" || cp.version === undefined || cp.settings === undefined || cp.state === undefined) {
    throw new SamplerOptionError("resume: the text is not a checkpoint (it lacks version, settings or state)");
  }
  const chains = cp.state.chains.map((ch) => ({ ...ch, draws: new Float64Array(0), stats: EMPTY_STATS }));
  return { version: cp.version, settings: cp.settings, state: { ...cp.state, chains } };
}

/** Writes a checkpoint to `path` atomically: into a temporary file beside it, flushed, then renamed over it. */
export function writeCheckpointFile(path: string, checkpoint: Checkpoint): void {
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, "w");
  try {
    writeSync(fd, encodeCheckpoint(checkpoint) + "\n");
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Reads a checkpoint file that writeCheckpointFile wrote. */
export function readCheckpointFile(path: string): Checkpoint {
  return decodeCheckpoint(readFileSync(path, "utf8"));
}
