import { Node } from "@ppl/tensor";
import { rebuild, toposort } from "@ppl/tensor/ir";
import { scanMaxLength } from "./scan-budget.ts";

/**
 * The graph with each scan whose thread could run past the driver's cap on loop iterations
 * (llvmpipe ends all of an invocation's loops after 65,535) run as consecutive shorter scans, each
 * within the cap and a kernel of its own, the next starting from the last one's carries. Only scans
 * whose steps are functions of the carries alone (no xs read, no ys written: an adaptive ODE
 * solver's interval, a fixed-point iteration) are split; for them the chain computes the very same
 * steps (a scan that reaches a fixed point stops there, and the next one stops at its first step).
 * Other scans over the cap, and scans whose one step is over it, are left to checkScanLoopBudget.
 */
export function splitLongScans(outputs: readonly Node[], maxLoopIterations: number): Node[] {
  if (!Number.isFinite(maxLoopIterations) || !toposort(outputs).some((n) => n.op === "scan")) return [...outputs];
  return rebuild(outputs, (n, inputs) => {
    const same = inputs.every((x, k) => x === n.inputs[k]);
    if (n.op !== "scan") return same ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
    const body = n.attrs.body!;
    const length = n.attrs.length!;
    const chunk = scanMaxLength(n, maxLoopIterations);
    const carriesOnly = body.nX === 0 && body.outputs.length === body.nCarry;
    if (!carriesOnly || chunk < 1 || chunk >= length) return same ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
    const consts = inputs.slice(body.nCarry);
    let carries = inputs.slice(0, body.nCarry);
    let last = n;
    for (let start = 0; start < length; start += chunk) {
      last = Node.make("scan", n.dtype, n.shape, [...carries, ...consts], { ...n.attrs, length: Math.min(chunk, length - start) });
      const made = last;
      carries = n.attrs.outputs!.map((o, k) => Node.make("tuple_get", o.dtype, o.shape, [made], { index: k }));
    }
    return last;
  });
}
