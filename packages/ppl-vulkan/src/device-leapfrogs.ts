/**
 * Whole leapfrog trajectories of every chain on the device, in ONE submission (BatchedDensity.
 * leapfrogs for a layer method's run on the GPU's batched gradient): ppl's leapfrog halves
 * (leapfrog-graph.ts, tensor-IR graphs over [chains, dim], rendered by the same codegen as the
 * gradient) recorded n times around the gradient's kernels. The step state lives in two sets of
 * buffers that the steps alternate between (each step reads one set and writes the other, so no
 * kernel writes what it reads); the inputs are written into one host buffer and copied in at the
 * start, the end state copied out at the end. What the host does per trajectory is O(C·D) copies,
 * once (whole arrays where the method keeps its momenta in one; a chain's inverse metric only when
 * it changed), instead of a leapfrog's arithmetic and a submission per step.
 */
import { leapfrogGraphs, LEAPFROG_STATE, momentumDrawGraphs, momentumRowsOf, type LeapfrogStateField, type MomentumDraw, type Trajectory } from "@ppl/ppl/inference";
import type { Metric } from "@ppl/ppl";
import type { ChainBatch } from "@ppl/ppl/runner";
import type { Node } from "@ppl/tensor";
import { planProgram, type RenderLimits, type Sequence, type VulkanBuffer, type VulkanManager } from "@ppl/vulkan";
import { kernelPrelude, residentProgram, type ResidentProgram } from "@ppl/vulkan/internals";
import type { BatchedGradient } from "./batched-gradient.ts";

/** The device's leapfrog trajectories for a run of C chains, and what they cost. */
export interface DeviceLeapfrogs {
  /**
   * Runs every chain's trajectory (trajectories[c] is row c's) as ppl's leapfrogsByRounds would;
   * false, having done nothing, where it cannot (another number of chains, a dense metric).
   */
  run(batch: ChainBatch, trajectories: readonly Trajectory[]): boolean;
  /** Submissions so far (one a run of trajectories). */
  readonly submissions: number;
  /** Leapfrog steps recorded so far (the longest trajectory of each run). */
  readonly steps: number;
  /** Seconds the host waited for the submissions. */
  readonly waitSeconds: number;
  /** Seconds spent recording sequences (one a trajectory length, kept for the next run of that length). */
  readonly recordSeconds: number;
  /** Dispatches a step records: the two halves' and the gradient's. */
  readonly dispatchesPerStep: number;
  dispose(): void;
}

// The state a step carries, in one of its two sets of buffers.
type StateSet = Readonly<Record<LeapfrogStateField, VulkanBuffer>>;

// The real-valued parts of the upload (then the i32 parts: active, taken, steps, stop), in order.
const REAL_UPLOAD = ["q", "p", "grad", "lp", "invMetric", "stepSize"] as const;
// What a run reads back: the end state's reals, then the steps taken.
const REAL_RESULT = ["q", "p", "grad", "lp"] as const;

/** The leapfrog programs of C chains beside the batched gradient, their buffers allocated once. */
export async function deviceLeapfrogs(manager: VulkanManager, gradient: BatchedGradient, chains: number, dim: number, dtype: "f32" | "f64", limits: RenderLimits): Promise<DeviceLeapfrogs> {
  const g = leapfrogGraphs(chains, dim, dtype);
  const [begin, end, draw] = await Promise.all([
    programOf(manager, [g.begin.q, g.begin.p], limits),
    programOf(manager, [g.end.q, g.end.p, g.end.grad, g.end.lp, g.end.active, g.end.taken], limits),
    programOf(manager, drawOutputs(chains, dim, dtype), limits),
  ]);
  const R = dtype === "f64" ? 8 : 4;
  const rows = chains * dim;
  const sizes: Record<LeapfrogStateField, number> = { q: rows * R, p: rows * R, grad: rows * R, lp: chains * R, active: chains * 4, taken: chains * 4 };
  const stateSet = (): StateSet => Object.fromEntries(LEAPFROG_STATE.map((f) => [f, manager.buffer(sizes[f])])) as unknown as StateSet;
  const sets = [stateSet(), stateSet()] as const;
  const fixed = { invMetric: manager.buffer(rows * R), stepSize: manager.buffer(chains * R), steps: manager.buffer(chains * 4), stop: manager.buffer(4) };
  const midP = manager.buffer(rows * R);
  // The momentum draw writes the first state set's p, the steps' start, and each chain's accept uniform.
  const { streams, acceptU, dispatches: drawDispatches } = drawBindings(manager, draw, chains, R, fixed.invMetric, sets[0].p);
  const io = hostArrays(chains, dim, dtype);
  const upload = manager.readbackBuffer(io.realBytes + io.ints.byteLength);
  const result = manager.readbackBuffer(io.resultReals.byteLength + chains * 4);
  const buffersOf = (set: StateSet, next: StateSet) => ({
    begin: bindings(begin, { q: set.q, p: set.p, grad: set.grad, active: set.active, inv_metric: fixed.invMetric, step_size: fixed.stepSize }, [gradient.q, midP]),
    end: bindings(end, {
      q: set.q, grad: set.grad, lp: set.lp, active: set.active, taken: set.taken, steps: fixed.steps, stop: fixed.stop, step_size: fixed.stepSize,
      mid_q: gradient.q, mid_p: midP, new_lp: gradient.lp, new_grad: gradient.grad,
    }, LEAPFROG_STATE.map((f) => next[f])),
  });
  const steps = [buffersOf(sets[0], sets[1]), buffersOf(sets[1], sets[0])] as const;
  // A sequence by its key: 2n for n steps, 2n + 1 for n steps after the momenta's draw (its momenta copied out as drawn).
  const record = (key: number): Sequence => {
    const n = key >> 1;
    const s = manager.sequence();
    copyIn(s, upload, sets[0], fixed, streams, io);
    if (key & 1) {
      drawDispatches.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
      s.copy(sets[0].p, result, { dstOffset: io.initialAt * R, byteLength: io.rows * R });
      s.copy(acceptU, result, { dstOffset: (io.initialAt + io.rows) * R, byteLength: chains * R });
    }
    for (let k = 0; k < n; k++) {
      const at = steps[k % 2]!;
      at.begin.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
      gradient.step.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
      at.end.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
    }
    copyOut(s, sets[n % 2]!, result, io);
    return s;
  };
  const recorded = new RecordedRuns(record);
  const stats = { submissions: 0, steps: 0, waitSeconds: 0, recordSeconds: 0 };
  return {
    run(batch, trajectories) {
      const first = trajectories[0];
      if (batch.chains !== chains || trajectories.length !== chains || !uniform(trajectories, first)) return false;
      const drawn = first?.draw !== undefined;
      const n = io.fill(batch, trajectories);
      if (n === 0 && !drawn) {
        trajectories.forEach((t) => (t.taken = 0));
        return true;
      }
      upload.write(io.reals);
      upload.write(io.ints, io.realBytes);
      const r0 = performance.now();
      const sequence = recorded.of(2 * n + (drawn ? 1 : 0));
      const t0 = performance.now();
      stats.recordSeconds += (t0 - r0) / 1e3;
      sequence.submitSync();
      stats.waitSeconds += (performance.now() - t0) / 1e3;
      stats.submissions++;
      stats.steps += n;
      result.readInto(io.resultReals);
      result.readInto(io.taken, io.resultReals.byteLength);
      io.scatter(batch, trajectories);
      return true;
    },
    get submissions() {
      return stats.submissions;
    },
    get steps() {
      return stats.steps;
    },
    get waitSeconds() {
      return stats.waitSeconds;
    },
    get recordSeconds() {
      return stats.recordSeconds;
    },
    dispatchesPerStep: steps[0].begin.length + gradient.step.length + steps[0].end.length,
    dispose() {
      recorded.dispose();
      [...sets.flatMap((s) => Object.values(s)), ...Object.values(fixed), ...Object.values(streams), acceptU, midP, upload, result].forEach((b) => b.destroy());
      begin.program.destroy();
      end.program.destroy();
      draw.program.destroy();
    },
  };
}

// Whether every trajectory has a diagonal metric, the first's stopAtNonFinite, and draws its momentum
// as the first does (or none does) from the same key (a loop: this runs every iteration).
function uniform(trajectories: readonly Trajectory[], first: Trajectory | undefined): boolean {
  if (!first) return true;
  const stop = first.stopAtNonFinite;
  const d = first.draw;
  const key = first.chain.key;
  for (let c = 0; c < trajectories.length; c++) {
    const t = trajectories[c]!;
    if (t.chain.metric.kind !== "diag" || t.stopAtNonFinite !== stop) return false;
    if (d ? !sameDraw(t.draw, d) || t.chain.key.lo !== key.lo || t.chain.key.hi !== key.hi : t.draw !== undefined) return false;
  }
  return true;
}

const sameDraw = (a: MomentumDraw | undefined, b: MomentumDraw): boolean =>
  a !== undefined && a.iteration === b.iteration && a.purpose === b.purpose && a.sub === b.sub && a.acceptPurpose === b.acceptPurpose;

// The draw's outputs: every chain's momentum and accept uniform (ppl's momentumDrawGraphs).
function drawOutputs(chains: number, dim: number, dtype: "f32" | "f64"): Node[] {
  const g = momentumDrawGraphs(chains, dim, dtype);
  return [g.p, g.acceptUniform];
}

/** The draw's inputs: each chain's id and the streams' words, i32. */
type StreamBuffers = Readonly<Record<"chainId" | "iteration" | "purposeWord" | "keyLo" | "keyHi" | "acceptWord", VulkanBuffer>>;

// The draw's input buffers, its accept uniforms' buffer (C reals of R bytes), and its dispatches writing the momenta into p.
function drawBindings(manager: VulkanManager, draw: HalfProgram, chains: number, R: number, invMetric: VulkanBuffer, p: VulkanBuffer) {
  const streams: StreamBuffers = {
    chainId: manager.buffer(4 * chains), iteration: manager.buffer(4), purposeWord: manager.buffer(4), keyLo: manager.buffer(4), keyHi: manager.buffer(4), acceptWord: manager.buffer(4),
  };
  const acceptU = manager.buffer(chains * R);
  const dispatches = bindings(draw, {
    chain_id: streams.chainId, iteration: streams.iteration, purpose_word: streams.purposeWord, key_lo: streams.keyLo, key_hi: streams.keyHi,
    accept_word: streams.acceptWord, inv_metric: invMetric,
  }, [p, acceptU]);
  return { streams, acceptU, dispatches };
}

/** A leapfrog half planned and made resident (its own buffers for its leaves and outputs go unused: bindings puts the run's in their place). */
interface HalfProgram {
  readonly plan: ReturnType<typeof planProgram>;
  readonly program: ResidentProgram;
}

async function programOf(manager: VulkanManager, outputs: readonly Node[], limits: RenderLimits): Promise<HalfProgram> {
  // Kernels of one dependency level share a dispatch: a step costs its count of dispatches.
  const plan = planProgram(outputs, limits, kernelPrelude, { merge: true });
  plan.outputs.forEach((n) => {
    if (n.op === "param") throw new Error(`leapfrog program: output ${n.attrs.name} is an input, left as it is; the step would not write it`);
  });
  return { plan, program: await residentProgram(manager, plan) };
}

/** The half's dispatches with the params bound by name and the outputs, in order, to the given buffers. */
function bindings(half: HalfProgram, params: Readonly<Record<string, VulkanBuffer>>, outputs: readonly VulkanBuffer[]) {
  const { plan, program } = half;
  const of = new Map<unknown, VulkanBuffer>(plan.outputs.map((n, i) => [n, outputs[i]!]));
  for (const n of plan.buffers) {
    if (n.op !== "param") continue;
    const b = params[n.attrs.name!];
    if (!b) throw new Error(`leapfrog program: no buffer for its input '${n.attrs.name}'`);
    of.set(n, b);
  }
  return plan.kernels.map((k, i) => ({ ...program.dispatches[i]!, buffers: k.bindings.map((b) => of.get(b) ?? program.buffers.get(b)!) }));
}

/** The host's side of a run: the upload (reals, then i32s) and the results, allocated once. */
interface HostArrays {
  /** The upload's reals: q, p, grad [C·D], lp [C], the inverse metric [C·D], the step sizes [C]. */
  readonly reals: Float64Array | Float32Array;
  readonly realBytes: number;
  readonly chains: number;
  readonly rows: number;
  /** The upload's i32s: active [C], taken [C] (zeros), steps [C], stop [1], then the draw's chain ids [C], iteration, purpose word, key words. */
  readonly ints: Int32Array;
  /** The end state's q, p, grad [C·D] and lp [C], then the momenta drawn [C·D] (at initialAt) and the accept uniforms [C], and the steps each chain took. */
  readonly resultReals: Float64Array | Float32Array;
  readonly initialAt: number;
  readonly taken: Int32Array;
  /** Writes the run's inputs; returns the longest trajectory's steps. */
  fill(batch: ChainBatch, trajectories: readonly Trajectory[]): number;
  /** Writes the results back into the batch and the trajectories. */
  scatter(batch: ChainBatch, trajectories: readonly Trajectory[]): void;
}

function hostArrays(chains: number, dim: number, dtype: "f32" | "f64"): HostArrays {
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const rows = chains * dim;
  const reals = new Real(4 * rows + 2 * chains);
  const ints = new Int32Array(4 * chains + 6);
  const initialAt = 3 * rows + chains;
  const resultReals = new Real(4 * rows + 2 * chains);
  const taken = new Int32Array(chains);
  // Each chain's metric and its generation when its row of the upload was last written.
  const metricOf: (Metric | undefined)[] = new Array<Metric | undefined>(chains);
  const generationOf = new Float64Array(chains);
  return {
    reals, realBytes: reals.byteLength, chains, rows, ints, resultReals, initialAt, taken,
    fill(batch, trajectories) {
      reals.set(batch.q, 0);
      reals.set(batch.grad, 2 * rows);
      reals.set(batch.lp, 3 * rows);
      // Momenta a method keeps in one array (ChEES) go in one copy; others row by row.
      const momenta = momentumRowsOf(trajectories, dim);
      if (momenta) reals.set(momenta, rows);
      let n = 0;
      // Element loops: a row is short (D), and TypedArray.set's call (converting to f32) costs more than its copy.
      const inverseAt = 3 * rows + chains;
      for (let c = 0; c < chains; c++) {
        const t = trajectories[c]!;
        if (!momenta) {
          const { p } = t;
          for (let i = 0, o = rows + c * dim; i < dim; i++) reals[o + i] = p[i]!;
        }
        // A chain's inverse metric is copied when it changed since the last run (warmup's updates), not every run.
        const metric = t.chain.metric;
        if (metric !== metricOf[c] || metric.generation !== generationOf[c]) {
          const inv = metric.inverse;
          for (let i = 0, o = inverseAt + c * dim; i < dim; i++) reals[o + i] = inv[i]!;
          metricOf[c] = metric;
          generationOf[c] = metric.generation;
        }
        reals[4 * rows + chains + c] = t.stepSize;
        ints[c] = t.steps > 0 ? 1 : 0;
        ints[chains + c] = 0;
        ints[2 * chains + c] = t.steps;
        if (t.steps > n) n = t.steps;
      }
      ints[3 * chains] = trajectories[0]?.stopAtNonFinite ? 1 : 0;
      const draw = trajectories[0]?.draw;
      if (draw) {
        const at = 3 * chains + 1;
        for (let c = 0; c < chains; c++) ints[at + c] = trajectories[c]!.chain.id;
        const { key } = trajectories[0]!.chain;
        // The stream's words as i32 (an Int32Array keeps the low 32 bits).
        ints[at + chains] = draw.iteration;
        ints[at + chains + 1] = draw.purpose | (draw.sub << 8);
        ints[at + chains + 2] = key.lo;
        ints[at + chains + 3] = key.hi;
        ints[at + chains + 4] = draw.acceptPurpose ?? 0;
      }
      return n;
    },
    scatter(batch, trajectories) {
      batch.q.set(resultReals.subarray(0, rows));
      batch.grad.set(resultReals.subarray(2 * rows, 3 * rows));
      batch.lp.set(resultReals.subarray(3 * rows, initialAt));
      const momenta = momentumRowsOf(trajectories, dim);
      if (momenta) momenta.set(resultReals.subarray(rows, 2 * rows));
      const draw = trajectories[0]?.draw;
      // The momenta drawn, in one piece where the method keeps them in one array.
      const initialRows = draw?.initialRows?.length === rows ? draw.initialRows : undefined;
      if (initialRows) initialRows.set(resultReals.subarray(initialAt, initialAt + rows));
      const { evaluations } = batch;
      // No view a chain: a subarray per chain per iteration was the loop's garbage.
      for (let c = 0; c < chains; c++) {
        const t = trajectories[c]!;
        const { p } = t;
        if (!momenta) for (let i = 0, o = rows + c * dim; i < dim; i++) p[i] = resultReals[o + i]!;
        if (draw) {
          const own = t.draw!;
          if (!initialRows) for (let i = 0, o = initialAt + c * dim; i < dim; i++) own.initial[i] = resultReals[o + i]!;
          if (own.acceptPurpose !== undefined) own.acceptUniform = resultReals[initialAt + rows + c]!;
        }
        t.taken = taken[c]!;
        evaluations[c] = evaluations[c]! + t.taken;
      }
    },
  };
}

// The upload into the first state set and the fixed inputs, as copies at the sequence's start.
function copyIn(s: Sequence, upload: VulkanBuffer, set: StateSet, fixed: Readonly<Record<"invMetric" | "stepSize" | "steps" | "stop", VulkanBuffer>>, streams: StreamBuffers, io: HostArrays): void {
  const R = io.reals.BYTES_PER_ELEMENT;
  const { rows, chains } = io;
  const realTargets = [set.q, set.p, set.grad, set.lp, fixed.invMetric, fixed.stepSize];
  const realLengths = [rows, rows, rows, chains, rows, chains];
  let at = 0;
  REAL_UPLOAD.forEach((_, i) => {
    s.copy(upload, realTargets[i]!, { srcOffset: at, byteLength: realLengths[i]! * R });
    at += realLengths[i]! * R;
  });
  const intTargets = [set.active, set.taken, fixed.steps, fixed.stop];
  intTargets.forEach((b, i) => s.copy(upload, b, { srcOffset: io.realBytes + 4 * chains * i, byteLength: i === 3 ? 4 : 4 * chains }));
  const streamAt = io.realBytes + 4 * (3 * chains + 1);
  s.copy(upload, streams.chainId, { srcOffset: streamAt, byteLength: 4 * chains });
  [streams.iteration, streams.purposeWord, streams.keyLo, streams.keyHi, streams.acceptWord].forEach((b, i) => s.copy(upload, b, { srcOffset: streamAt + 4 * (chains + i), byteLength: 4 }));
}

// The end state's q, p, grad, lp and steps taken into the result buffer, as copies at the sequence's end.
function copyOut(s: Sequence, set: StateSet, result: VulkanBuffer, io: HostArrays): void {
  const R = io.reals.BYTES_PER_ELEMENT;
  let at = 0;
  for (const f of REAL_RESULT) {
    const bytes = (f === "lp" ? io.chains : io.rows) * R;
    s.copy(set[f], result, { dstOffset: at, byteLength: bytes });
    at += bytes;
  }
  s.copy(set.taken, result, { dstOffset: io.resultReals.byteLength, byteLength: io.taken.byteLength });
}

/**
 * Sequences recorded by trajectory length, the most recently used kept: after warmup a ChEES run's
 * lengths are ⌈h·T/ε⌉ for h ∈ (0, 1], at most ⌈T/ε⌉ of them, so that 128 kept are rarely recorded
 * again (a sequence holds a command buffer and its descriptor sets, n·7 for eight schools).
 */
class RecordedRuns {
  private readonly kept = new Map<number, Sequence>();
  constructor(private readonly record: (n: number) => Sequence, private readonly limit = 128) {}

  of(n: number): Sequence {
    let s = this.kept.get(n);
    if (s) this.kept.delete(n);
    else s = this.record(n);
    this.kept.set(n, s);
    if (this.kept.size > this.limit) {
      const [oldest, seq] = this.kept.entries().next().value!;
      seq.destroy();
      this.kept.delete(oldest);
    }
    return s;
  }

  dispose(): void {
    this.kept.forEach((s) => s.destroy());
    this.kept.clear();
  }
}
