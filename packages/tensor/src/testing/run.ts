import fc from "fast-check";
import type { Backend } from "../backend.ts";
import { interpret } from "../cpu/reference/interpret.ts";
import type { TensorValue } from "../cpu/value.ts";
import type { Node } from "../ir/node.ts";
import { fmt } from "../ir/shape.ts";
import type { CaseInstance, ConformanceCase } from "./case.ts";
import { conformanceCases } from "./cases.ts";
import { firstMismatch, type FloatDType } from "./tolerance.ts";

/** Evaluates a graph the backend under test is compared with; the reference interpreter by default. */
export type Oracle = (outputs: readonly Node[], bindings: CaseInstance["bindings"]) => TensorValue[] | Promise<TensorValue[]>;

/** Options of a conformance run. */
export interface ConformanceOptions {
  /** Random instances per case (default 25). */
  numRuns?: number;
  /** Float dtype the case graphs are built in (default f64). */
  dtype?: FloatDType;
  /** fast-check seed, for reproducing a failure. */
  seed?: number;
  /** The oracle (default: the reference interpreter). */
  oracle?: Oracle;
  /** Only cases whose name passes this filter. */
  filter?: (name: string) => boolean;
}

/** Result of running the suite: names that passed, and failures with fast-check's report. */
export interface ConformanceReport {
  passed: string[];
  failed: { name: string; message: string }[];
}

const referenceOracle: Oracle = (outputs, bindings) => interpret(outputs, bindings);

/** Run one instance through the backend and the oracle; throws an Error describing the first out-of-tolerance element. */
export async function checkInstance(backend: Backend, c: ConformanceCase, inst: CaseInstance, dtype: FloatDType, oracle: Oracle = referenceOracle): Promise<void> {
  const exe = backend.compileSync ? backend.compileSync(inst.outputs) : await backend.compile(inst.outputs);
  const got = exe.runSync ? exe.runSync(inst.bindings) : await exe.run(inst.bindings);
  exe.dispose?.();
  const want = await oracle(inst.outputs, inst.bindings);
  const scaleNodes = inst.scales.filter((s): s is Node => s !== undefined);
  const scaleValues = scaleNodes.length ? await oracle(scaleNodes, inst.bindings) : [];
  const tol = c.tolerance(dtype);
  let k = 0;
  inst.outputs.forEach((o, j) => {
    const g = got[j]!, w = want[j]!;
    if (g.data.length !== w.data.length) throw new Error(`${c.name}: output ${j} (${o.op}) has ${g.data.length} values, expected ${w.data.length} ${fmt(o.shape)}`);
    const scale = inst.scales[j] ? scaleValues[k++]!.data : undefined;
    const bad = firstMismatch(g.data, w.data, o.dtype, dtype, tol, scale);
    if (bad) {
      throw new Error(
        `${c.name}: output ${j} (${o.op}:${o.dtype}${fmt(o.shape)}) element ${bad.index}: got ${bad.got}, expected ${bad.want} ` +
          `(|diff| ${Math.abs(bad.got - bad.want)} > allowed ${bad.allowed}; ${backend.name} vs oracle)`,
      );
    }
  });
}

/** Check one case on `numRuns` random instances; rejects with fast-check's report (seed, shrunk counterexample) on failure. */
export async function checkConformanceCase(backend: Backend, c: ConformanceCase, opts: ConformanceOptions = {}): Promise<void> {
  const dtype = opts.dtype ?? "f64";
  await fc.assert(
    fc.asyncProperty(c.arbitrary(dtype), (inst) => checkInstance(backend, c, inst, dtype, opts.oracle)),
    { numRuns: opts.numRuns ?? 25, ...(opts.seed === undefined ? {} : { seed: opts.seed }) },
  );
}

/** Run every case (or the filtered ones) and report; with `throwOnFailure` (default) rejects listing every failed case. */
export async function runConformance(
  backend: Backend,
  opts: ConformanceOptions & { cases?: readonly ConformanceCase[]; throwOnFailure?: boolean } = {},
): Promise<ConformanceReport> {
  const cases = (opts.cases ?? conformanceCases()).filter((c) => !opts.filter || opts.filter(c.name));
  const report: ConformanceReport = { passed: [], failed: [] };
  for (const c of cases) {
    try {
      await checkConformanceCase(backend, c, opts);
      report.passed.push(c.name);
    } catch (e) {
      report.failed.push({ name: c.name, message: e instanceof Error ? e.message : String(e) });
    }
  }
  if ((opts.throwOnFailure ?? true) && report.failed.length) {
    throw new Error(`${report.failed.length} conformance case(s) failed on ${backend.name}:\n\n${report.failed.map((f) => f.message).join("\n\n")}`);
  }
  return report;
}
