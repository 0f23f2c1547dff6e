import type { CompiledModel } from "@ppl/ppl";
import { type Node } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";

/** How the chains' transitions are laid out on the device (docs/gpu-sampler.md). */
export type ExecutionShape = "thread" | "workgroup" | "device";

/**
 * Thread per chain only while one gradient is tiny (at most 128 data elements: eight schools, the
 * HMM); a workgroup per chain for moderate data, so each chain's loops run many threads wide;
 * beyond that, or when many chains share moderate data, the whole device computes each gradient
 * for all chains at once, reading the data once per leapfrog. On the H200 (bench/RESULTS.md) a
 * workgroup per chain ran 1.4–19× more gradients per second than a thread for the posteriordb
 * models with 205–1309 data elements (arK 6.8×, kidiq 7×, the mixture 19×; garch level), and
 * 0.8× for the HMM's 104 (before its scans were merged and its scratch moved on chip: see below); 1024 chains over 10k data elements sampled 2.3× faster in the device shape
 * than a workgroup per chain, before the workgroup computed a regression's rows in one pass: with
 * that pass (`rowPass`), up to ROW_PASS_WORKGROUP_LIMIT data elements × chains keep the workgroup.
 *
 * On a CPU implementation of Vulkan (lavapipe) always the device shape: lavapipe stops a shader's
 * loops after 65,535 iterations, which cuts a fused kernel's long trajectories short and returns
 * wrong draws without an error; the device shape keeps the NUTS loop between dispatches.
 *
 * A model that factorises or solves a matrix of order 8 or more per gradient (a Gaussian process)
 * gets a workgroup per chain even on tiny data: one thread runs the O(n³) loops serially through
 * memory, a workgroup spreads their columns. On the H200, gp_pois_regr (n = 11, f64) ran 34,500
 * gradients/s with a workgroup per chain and under 8,000/s with a thread.
 *
 * So does a density with a scan of 64 steps or more (a time series' recurrence): a workgroup
 * computes each step's elementwise work and sums across its threads, and keeps the stacked
 * carries of the reverse pass in shared memory. On the H200, hmm_example (99 steps, 104 data
 * elements) ran 20,300 gradients/s with a workgroup per chain and 12,900/s with a thread.
 */
export function chooseShape(dataElements: number, chains = 1, deviceType?: string, matrixOrder = 0, scanSteps = 0, rowPass = false): ExecutionShape {
  if (deviceType === "cpu") return "device";
  if (dataElements <= 128) return matrixOrder >= 8 || scanSteps >= 64 ? "workgroup" : "thread";
  return dataElements <= WORKGROUP_DATA && dataElements * chains < (rowPass ? ROW_PASS_WORKGROUP_LIMIT : WORKGROUP_WORK) ? "workgroup" : "device";
}

/** Most data elements of a model that gets a workgroup per chain. */
const WORKGROUP_DATA = 20_000;

/** Data elements × chains below which any model with moderate data gets a workgroup per chain. */
const WORKGROUP_WORK = 1_000_000;

/** Whether chooseShape's answer depends on its `rowPass` argument (worth building the gradient graph to find it). */
export function rowPassDecides(dataElements: number, chains: number, deviceType?: string): boolean {
  return deviceType !== "cpu" && dataElements > 128 && dataElements <= WORKGROUP_DATA && dataElements * chains >= WORKGROUP_WORK && dataElements * chains < ROW_PASS_WORKGROUP_LIMIT;
}

/**
 * Data elements × chains up to which a regression whose gradient the workgroup renders as one row
 * pass (rendersRowPass) keeps a workgroup per chain. The 1000 × 10 logistic anchor on an H100
 * (bench/RESULTS.md, the step-size searches on the device): 132 chains 736,564 ESS/s against the
 * device shape's 364,423; 1024 chains 1.64M against 1.51M (the device's wait 0.14 s against 0.29);
 * 4096 chains 1.70M against 1.81M, where the host's work on the draws outweighs the wait.
 */
const ROW_PASS_WORKGROUP_LIMIT = 2 ** 24;

/**
 * Where the thread and workgroup shapes evaluate warmup's step-size searches (the device shape
 * always uses its batched gradient). A search step evaluates every chain: on the host that is
 * chains × data elements of work, about 10 ns an element (an H100 machine's host, the 1000 × 10
 * logistic anchor: 0.1 ms a chain, so 2.2 s of a 1024-chain run's 2.5 s went to about 20 such
 * evaluations); on the device it is one submission and one read, about 0.1 ms whatever the chains,
 * after building a batched gradient beside the fused kernel. The device from 2^18 element-chains
 * (about 2.6 ms of host work an evaluation), where the searches' host time outgrows that build;
 * the host on a CPU implementation of Vulkan, which is no faster than the host itself.
 */
export function chooseStepSizeSearch(dataElements: number, chains: number, deviceType?: string): "host" | "device" {
  if (deviceType === "cpu") return "host";
  return dataElements * chains >= 2 ** 18 ? "device" : "host";
}

/** The model's size as the shapes are chosen by: its data's and its parameters' elements. */
export function modelWork(model: Pick<CompiledModel, "q" | "dataBindings">): number {
  // Sizes from the shapes: a binding's f64 data may not exist until read (check-data.ts).
  return Object.values(model.dataBindings).reduce((s, v) => s + v.shape.reduce((a, b) => a * b, 1), 0) + model.q.size;
}

/** Threads per chain in the workgroup shape: enough to spread the data loop, a power of two. */
export function chooseWorkgroup(dataElements: number): number {
  return dataElements < 50_000 ? 64 : 256;
}

// The ops whose first input is a square matrix factorised or solved with serial O(n³) loops.
const FACTORISATIONS = new Set<string>(["cholesky", "triangular_solve", "solve", "slogdet", "eigh"]);

/** The steps of the longest scan in the log density, nested scans' steps multiplied in (0 if none). */
export function longestScan(logDensity: Node): number {
  let longest = 0;
  const visit = (outputs: readonly Node[], outer: number): void => {
    for (const n of toposort(outputs)) {
      if (n.op !== "scan") continue;
      const steps = outer * n.attrs.length!;
      longest = Math.max(longest, steps);
      visit(n.attrs.body!.outputs, steps);
    }
  };
  visit([logDensity], 1);
  return longest;
}

/** The order of the largest matrix the log density factorises or solves (0 if none). */
export function largestFactorisation(logDensity: Node): number {
  let order = 0;
  for (const n of toposort([logDensity])) {
    if (FACTORISATIONS.has(n.op)) order = Math.max(order, n.inputs[0]!.shape[n.inputs[0]!.shape.length - 1]!);
  }
  return order;
}
