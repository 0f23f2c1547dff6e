import { GraphError, type Node } from "@ppl/tensor";
import { isBinary, isCompare, isUnary, sizeOf } from "@ppl/tensor/ir";
import { binaryGlsl, compareGlsl, unaryGlsl } from "./functions.ts";
import { convert, glslType, literal } from "./glsl.ts";
import { broadcastIndex, flatten, plus, times, unflatten } from "./index-math.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";

/** Renders the value of a node at a multi-index as GLSL, computing inline what storage does not hold. */
export class ExprRenderer {
  private readonly counter: { n: number };

  /** A renderer reading `storage`; one made from a parent shares its variable numbering (nested scan bodies). */
  constructor(private readonly storage: Storage, parent?: ExprRenderer) {
    this.counter = parent ? parent.counter : { n: 0 };
  }

  /** A fresh local variable name. */
  fresh(prefix = "t"): string {
    return `${prefix}${this.counter.n++}`;
  }

  /** GLSL expression (a literal or a local variable) for `node` at `idx`. */
  value(node: Node, idx: readonly string[], scope: Scope): string {
    if (node.op === "const" && typeof node.attrs.value === "number") return literal(node.attrs.value, node.dtype);
    const key = `${node.id}@${idx.join(",")}`;
    const hit = scope.lookup(key);
    if (hit) return hit;
    // A value that does not vary in the loop it is asked for in is computed before the loop.
    const at = scope.placement(idx);
    if (at !== scope) return this.value(node, idx, at);
    const stored = this.storage.read(node, idx, scope);
    const expr = stored ?? this.compute(node, idx, scope);
    const name = this.fresh();
    scope.emit(`${glslType(node.dtype)} ${name} = ${expr};`);
    scope.remember(key, name);
    return name;
  }

  /**
   * Declares that `node` at `idx` is `expr` in `scope` and the blocks nested in it: what is known
   * there without reading it (a scatter's index at an entry of target j's segment is j).
   */
  know(node: Node, idx: readonly string[], scope: Scope, expr: string): void {
    scope.remember(`${node.id}@${idx.join(",")}`, expr);
  }

  /** GLSL expression computing `node` at `idx` from its inputs (never reading the node's own storage). */
  compute(node: Node, idx: readonly string[], scope: Scope): string {
    const op = node.op;
    const input = (k: number, at: readonly string[]) => this.value(node.inputs[k]!, at, scope);
    const bcast = (k: number) => input(k, broadcastIndex(node.inputs[k]!.shape, idx));
    if (isUnary(op)) return unaryGlsl(op, bcast(0), node.dtype);
    if (isBinary(op)) return binaryGlsl(op, bcast(0), bcast(1), node.dtype);
    if (isCompare(op)) return compareGlsl(op, bcast(0), bcast(1));
    switch (op) {
      case "const": {
        if (typeof node.attrs.value === "number") return literal(node.attrs.value, node.dtype);
        throw new GraphError("vulkan codegen: an array constant must live in a buffer");
      }
      case "polygamma": return node.attrs.order === 0 ? `ppl_digamma(${bcast(0)})` : `ppl_polygamma(${node.attrs.order}, ${bcast(0)})`;
      case "betainc": return `ppl_betainc(${bcast(0)}, ${bcast(1)}, ${bcast(2)})`;
      case "betainc_grad": return `ppl_betainc_grad(${bcast(0)}, ${bcast(1)}, ${bcast(2)}, ${node.attrs.wrt!})`;
      case "cast": return convert(bcast(0), node.inputs[0]!.dtype, node.dtype);
      case "select": return `(${bcast(0)} ? ${bcast(1)} : ${bcast(2)})`;
      case "reshape": return input(0, unflatten(node.inputs[0]!.shape, flatten(node.shape, idx)));
      case "broadcast_to": return bcast(0);
      case "transpose": {
        const perm = node.attrs.perm!;
        const src = new Array<string>(perm.length);
        perm.forEach((p, i) => (src[p] = idx[i]!));
        return input(0, src);
      }
      case "slice": {
        const { starts, steps } = node.attrs;
        return input(0, idx.map((e, a) => plus(`${starts![a]}`, times(e, steps![a]!))));
      }
      case "pad": {
        const widths = node.attrs.widths!;
        const inShape = node.inputs[0]!.shape;
        // An empty input has nothing to read (a clamp into [0, −1] would not compile): all padding.
        if (sizeOf(inShape) === 0) return literal(node.attrs.padValue ?? 0, node.dtype);
        const conds: string[] = [];
        const src = idx.map((e, a) => {
          const [lo, hi] = widths[a]!;
          if (lo === 0 && hi === 0) return e;
          const shifted = lo === 0 ? e : `(${e}-${lo})`;
          conds.push(`${shifted} >= 0 && ${shifted} < ${inShape[a]}`);
          return `clamp(${shifted}, 0, ${inShape[a]! - 1})`;
        });
        return `((${conds.join(" && ")}) ? ${input(0, src)} : ${literal(node.attrs.padValue ?? 0, node.dtype)})`;
      }
      case "concat": {
        const axis = node.attrs.axis!;
        let offset = 0;
        const parts = node.inputs.map((x, k) => {
          const d = x.shape[axis]!;
          const local = offset === 0 ? idx[axis]! : `(${idx[axis]}-${offset})`;
          const src = [...idx];
          src[axis] = `clamp(${local}, 0, ${d - 1})`;
          const part = { lo: offset, hi: offset + d, v: input(k, src) };
          offset += d;
          return part;
        });
        let expr = parts[parts.length - 1]!.v;
        for (let k = parts.length - 2; k >= 0; k--) expr = `(${idx[axis]} < ${parts[k]!.hi} ? ${parts[k]!.v} : ${expr})`;
        return expr;
      }
      case "gather": {
        const axis = node.attrs.axis!;
        const ind = node.inputs[1]!;
        const d = node.inputs[0]!.shape[axis]!;
        const j = input(1, idx.slice(axis, axis + ind.rank));
        // Devices cannot raise errors: an out-of-range index is clamped (the CPU backends reject it).
        const src = [...idx.slice(0, axis), `clamp(${j}, 0, ${d - 1})`, ...idx.slice(axis + ind.rank)];
        return input(0, src);
      }
      default:
        throw new GraphError(`vulkan codegen: op '${op}' must be materialized, not inlined`);
    }
  }
}
