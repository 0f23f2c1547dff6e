import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { castFloats, optimize, valueAndGrad, type Node } from "@ppl/tensor";
import { kernelPrelude } from "../codegen/kernel-prelude.ts";
import { renderLogpFunction } from "./logp-function.ts";

const SHADER_DIR = process.env.PPL_SHADERS_DIR
  ? `${process.env.PPL_SHADERS_DIR}/nuts/`
  : fileURLToPath(new URL("../../../../shaders/nuts/", import.meta.url));

/** Buffers of the NUTS kernel before the model's data buffers. */
export const NUTS_FIXED_BUFFERS = 8;

/** The GLSL of a thread-per-chain NUTS transition for one model, and the data leaves it binds. */
export interface NutsProgram {
  readonly source: string;
  readonly data: readonly Node[];
  readonly localSize: number;
}

/** Shape and precision of a NUTS kernel. */
export interface NutsProgramOptions {
  readonly chains: number;
  readonly maxDepth: number;
  readonly dtype: "f32" | "f64";
  readonly localSize?: number;
}

/**
 * Build the fused NUTS kernel of a model: the log density and its gradient (one chain, over the
 * unconstrained vector `q`) are differentiated, optimized, lowered to the dtype and rendered as a
 * GLSL function, which the hand-written NUTS loop (shaders/nuts/thread_per_chain.glsl) calls
 * at every leapfrog step — the whole transition is one dispatch.
 */
export function nutsProgram(logDensity: Node, q: Node, opts: NutsProgramOptions): NutsProgram {
  const { value, grads } = valueAndGrad(logDensity, [q]);
  let outs = optimize([value, grads[0]!]);
  let qNode = q;
  if (opts.dtype === "f32") {
    const lowered = castFloats([...outs, q], "f32");
    outs = lowered.slice(0, 2);
    qNode = lowered[2]!;
  }
  const dim = q.size;
  const logp = renderLogpFunction(outs[0]!, outs[1]!, qNode, NUTS_FIXED_BUFFERS, opts.dtype);
  const localSize = opts.localSize ?? 64;
  const source = [
    "#version 450",
    `#define NREAL ${opts.dtype === "f64" ? "double" : "float"}`,
    `#define SFX(name) name##_${opts.dtype}`,
    `#define D ${dim}`,
    `#define MAXD ${opts.maxDepth}`,
    `#define CHAINS ${opts.chains}`,
    `layout(local_size_x = ${localSize}) in;`,
    kernelPrelude(new Set([opts.dtype])),
    logp.source,
    readFileSync(`${SHADER_DIR}thread_per_chain.glsl`, "utf8"),
  ].join("\n");
  return { source, data: logp.data, localSize };
}
