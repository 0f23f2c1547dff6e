/**
 * A block's results (stats, draws and the last gradient) on their way back to the host: copied by
 * the device into host memory and read in place, one sequence of copies per block length.
 */
import type { Sequence, VulkanManager } from "@ppl/vulkan";
import type { StateBuffers } from "./engine.ts";
import { TRANSITION_STATS } from "./nuts-layout.ts";

/**
 * Largest buffer that a block's stats, draws and gradient are copied into to come back in one
 * read: a read through staging memory costs an H200's host about a millisecond whatever its size
 * (1.1 ms for 4 KB, 3.7 ms for 4 MB), and the device copies in microseconds. Past this the copy
 * would double the device memory of the draws, so they come back in three reads.
 */
const MAX_READBACK_BYTES = 64 * 2 ** 20;

/** The sizes of a run's blocks on the device. */
export interface BlockLayout {
  readonly chains: number;
  readonly dim: number;
  /** Most iterations of one block. */
  readonly blockIterations: number;
  readonly dtype: "f32" | "f64";
}

/** A block's results as the host reads them, in the run's float type. */
export interface BlockResults {
  readonly stats: Float32Array | Float64Array;
  readonly draws: Float32Array | Float64Array;
  readonly g: Float32Array | Float64Array;
}

/** Reads a block of k iterations back from the state buffers. */
export interface BlockReadback {
  read(k: number): BlockResults;
  dispose(): void;
}

/** The host's array type for a float type. */
export function realArray(dtype: "f32" | "f64"): Float32ArrayConstructor | Float64ArrayConstructor {
  return dtype === "f64" ? Float64Array : Float32Array;
}

/** The readback of a run's blocks: one copy into host memory where they fit MAX_READBACK_BYTES, else three reads. */
export function blockReadback(manager: VulkanManager, state: StateBuffers, layout: BlockLayout): BlockReadback {
  const { chains: C, dim: D } = layout;
  const bytes = layout.dtype === "f64" ? 8 : 4;
  const Real = realArray(layout.dtype);
  const NSTATS = TRANSITION_STATS.length;
  // The three parts of a block's results, side by side (stats, draws, gradient); one sequence of
  // copies per block length.
  const resultBytes = (k: number) => [k * C * NSTATS * bytes, k * C * D * bytes, C * D * bytes] as const;
  const largest = resultBytes(layout.blockIterations).reduce((a, b) => a + b, 0);
  // Host memory the block's results are copied into and read in place (no staging copy of its own).
  const readback = largest <= MAX_READBACK_BYTES ? manager.readbackBuffer(largest) : null;
  const sequences = new Map<number, Sequence>();
  const copiesFor = (k: number, into: NonNullable<typeof readback>): Sequence => {
    const [sb, db, gb] = resultBytes(k);
    let copies = sequences.get(k);
    if (!copies) {
      copies = manager.sequence()
        .copy(state.stats, into, { byteLength: sb })
        .copy(state.draws, into, { byteLength: db, dstOffset: sb })
        .copy(state.g, into, { byteLength: gb, dstOffset: sb + db });
      sequences.set(k, copies);
    }
    return copies;
  };
  return {
    read(k) {
      const [sb, db, gb] = resultBytes(k);
      if (!readback) return { stats: new Real(state.stats.read(sb)), draws: new Real(state.draws.read(db)), g: new Real(state.g.read(gb)) };
      copiesFor(k, readback).submitSync();
      const all = readback.read(sb + db + gb);
      return { stats: new Real(all, 0, sb / bytes), draws: new Real(all, sb, db / bytes), g: new Real(all, sb + db, gb / bytes) };
    },
    dispose() {
      sequences.forEach((q) => q.destroy());
      readback?.destroy();
    },
  };
}
