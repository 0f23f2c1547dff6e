import type { Scope } from "./scope.ts";

// A thread's loop over a strided range (a split reduction's slice and its last workgroup's
// partials, a segment's entries), with its iterations run several at a time. GPU compilers neither pipeline loops nor move a load
// past a branch, so a loop whose iteration loads an index and then gathers by it waits two
// memory latencies an iteration: hier's six sums over 100k rows, eight rows a thread, were a
// chain of sixteen dependent loads. Here the loop body holds `copies` iterations: each reads at
// an index clamped into the range (so every load is in bounds and none waits on a branch), all
// of them computed in one block, then folded into the thread's state in iteration order, those
// past the end skipped. The state sees the same terms in the same order as the plain loop: the
// same bits.

/** A loop over `name` = start, start + stride, … while below `end` (a GLSL int expression each). */
export interface StridedRange {
  readonly name: string;
  readonly start: string;
  /** Evaluated more than once: a variable or a constant. */
  readonly end: string;
  /** A number, or a GLSL int expression fixed for the loop (a variable): a stride known only at run time. */
  readonly stride: number | string;
}

/**
 * Renders an iteration's values into `scope` (a loop body varying with `index` and the names
 * `declares` gave for it) and returns the statements that fold them into the thread's state.
 */
export type IterationBody = (scope: Scope, index: string) => readonly string[];

/**
 * Emit into `main` the loop over `range`, `copies` iterations a trip (1: the plain loop).
 * `declares(index)` names the variables an iteration declares itself (they vary with it).
 */
export function stridedLoop(main: Scope, range: StridedRange, copies: number, body: IterationBody, declares: (index: string) => readonly string[] = () => []): void {
  const { name, start, end, stride } = range;
  // The u-th iteration's offset from the trip's first, and a whole trip's.
  const offset = (u: number) => (typeof stride === "number" ? `${u * stride}` : `${u} * ${stride}`);
  if (copies <= 1) {
    const b = main.loop([name, ...declares(name)]);
    for (const l of body(b, name)) b.emit(l);
    main.block(`for (int ${name} = ${start}; ${name} < ${end}; ${name} += ${stride})`, b);
    return;
  }
  const base = `${name}_at`;
  const trip = main.child();
  const folds: (readonly string[])[] = [];
  for (let u = 0; u < copies; u++) {
    const index = `${name}_${u}`;
    trip.emit(u === 0 ? `int ${index} = ${base};` : `int ${index} = min(${base} + ${offset(u)}, ${end} - 1);`);
  }
  for (let u = 0; u < copies; u++) {
    const index = `${name}_${u}`;
    // A loop body of its own: values of this iteration vary with its index; the rest move before the loop.
    const b = main.loop([index, ...declares(index)]);
    folds.push(body(b, index));
    trip.lines.push(...b.lines);
  }
  folds.forEach((f, u) => {
    if (u === 0) f.forEach((l) => trip.emit(l));
    else trip.emit(`if (${base} + ${offset(u)} < ${end}) { ${f.join(" ")} }`);
  });
  main.block(`for (int ${base} = ${start}; ${base} < ${end}; ${base} += ${offset(copies)})`, trip);
}
