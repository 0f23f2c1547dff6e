import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { fmt, sameShape } from "../ir/shape.ts";
import { substitute } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { arg } from "./leaves.ts";

// Nesting depth of the scan body being traced right now.
let scanDepth = 0;

/** What a scan body returns: the next carries and the per-step outputs. */
export interface ScanStep {
  carry: readonly Node[];
  ys?: readonly Node[];
}

/** Result of a scan: final carries, and ys stacked along a new leading axis of `length`. */
export interface ScanResult {
  carry: Node[];
  ys: Node[];
}

/**
 * A sequential recurrence: for t = 0..length-1, (carry, y_t) = body(carry, xs[t], consts).
 * xs are sliced along axis 0; consts are passed whole to every step. The body is traced once
 * into a graph over placeholder args, so it is compiled, differentiated and batched like any graph.
 */
export function scan(
  body: (carry: Node[], xs: Node[], consts: Node[]) => ScanStep,
  init: readonly Node[],
  xs: readonly Node[] = [],
  consts: readonly Node[] = [],
  opts: { length?: number; reverse?: boolean } = {},
): ScanResult {
  const length = opts.length ?? xs[0]?.shape[0];
  if (length === undefined) throw new ShapeError("scan: give xs or an explicit length");
  for (const x of xs) {
    if (x.rank === 0 || x.shape[0] !== length) throw new ShapeError(`scan: every x needs a leading axis of ${length}, got ${fmt(x.shape)}`);
  }
  let i = 0;
  const depth = scanDepth;
  const carryArgs = init.map((c) => arg(i++, c.shape, c.dtype, depth));
  const xArgs = xs.map((x) => arg(i++, x.shape.slice(1), x.dtype, depth));
  const constArgs = consts.map((c) => arg(i++, c.shape, c.dtype, depth));
  scanDepth++;
  let step: ScanStep;
  try {
    step = body(carryArgs, xArgs, constArgs);
  } finally {
    scanDepth--;
  }
  if (step.carry.length !== init.length) throw new ShapeError(`scan: body returned ${step.carry.length} carries, expected ${init.length}`);
  step.carry.forEach((c, k) => {
    const c0 = init[k]!;
    if (!sameShape(c.shape, c0.shape) || c.dtype !== c0.dtype) {
      throw new ShapeError(`scan: carry ${k} enters as ${c0.dtype}${fmt(c0.shape)} and leaves as ${c.dtype}${fmt(c.shape)}`);
    }
  });
  const ys = step.ys ?? [];
  const outputs = [
    ...step.carry.map((c) => ({ dtype: c.dtype, shape: c.shape })),
    ...ys.map((y) => ({ dtype: y.dtype, shape: [length, ...y.shape] })),
  ];
  // Outer values the body closes over (parameters, data, anything computed outside) become extra consts.
  const captured = capturedNodes([...step.carry, ...ys], depth);
  const capArgs = new Map(captured.map((c) => [c, arg(i++, c.shape, c.dtype, depth)] as const));
  const bodyOutputs = substitute([...step.carry, ...ys], capArgs);
  const allConsts = [...consts, ...captured];
  const node = Node.make("scan", "f64", [], [...init, ...xs, ...allConsts], {
    body: { outputs: bodyOutputs, nCarry: init.length, nX: xs.length, nConst: allConsts.length },
    length,
    reverseScan: opts.reverse ?? false,
    outputs,
  });
  const outs = outputs.map((o, k) => Node.make("tuple_get", o.dtype, o.shape, [node], { index: k }));
  return { carry: outs.slice(0, init.length), ys: outs.slice(init.length) };
}

// Nodes the body uses that do not depend on its args and are not built from constants alone.
function capturedNodes(outputs: readonly Node[], depth: number): Node[] {
  const order = toposort(outputs);
  const usesArg = new Set<Node>();
  const constOnly = new Set<Node>();
  for (const n of order) {
    if ((n.op === "arg" && n.attrs.depth === depth) || n.inputs.some((x) => usesArg.has(x))) usesArg.add(n);
    else if (n.op === "const" || (n.inputs.length > 0 && n.op !== "tuple_get" && n.inputs.every((x) => constOnly.has(x)))) constOnly.add(n);
  }
  const captured = new Set<Node>();
  const consider = (x: Node) => {
    if (!usesArg.has(x) && !constOnly.has(x)) captured.add(x);
  };
  for (const n of order) if (usesArg.has(n)) n.inputs.forEach(consider);
  outputs.forEach(consider);
  return [...captured];
}
