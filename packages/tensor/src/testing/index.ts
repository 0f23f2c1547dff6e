/**
 * The op conformance suite: random graphs per op (and fusion stress graphs) checked against an
 * oracle (the reference interpreter) with dtype- and op-aware tolerances. Any backend's tests
 * can run it:
 *
 *   for (const c of conformanceCases()) it(c.name, () => checkConformanceCase(backend, c, { dtype: "f32" }));
 */
export { conformanceCases } from "./cases.ts";
export { checkConformanceCase, checkInstance, runConformance, type ConformanceOptions, type ConformanceReport, type Oracle } from "./run.ts";
export { describeInstance, instanceArb, type Built, type CaseInstance, type ConformanceCase, type InputSpec } from "./case.ts";
export {
  accumulatedTol, compositeTol, epsOf, exactTol, firstMismatch, specialTol, transcendentalTol, trigTol,
  type FloatDType, type Tolerance,
} from "./tolerance.ts";
export { ALL_OPS, opsOf } from "./ops-list.ts";
export { thrownBy } from "./thrown.ts";
export * from "./arbitraries.ts";
