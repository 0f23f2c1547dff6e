import { createHash } from "node:crypto";
import type { DType } from "./dtype.ts";
import type { LpdfFamily, Op } from "./ops.ts";
import type { Shape } from "./shape.ts";

/**
 * The one node type of the IR. Nodes are hash-consed: building a node equal in op, dtype,
 * shape, inputs and attributes to an existing one returns the existing object, so common
 * subexpressions merge as graphs are built and `hash` is a stable cache key across processes.
 */
export class Node {
  private static nextId = 0;

  readonly id: number;
  readonly hash: string;

  private constructor(
    readonly op: Op,
    readonly dtype: DType,
    readonly shape: Shape,
    readonly inputs: readonly Node[],
    readonly attrs: Readonly<Attrs>,
    hash: string,
  ) {
    this.id = Node.nextId++;
    this.hash = hash;
  }

  /** Number of elements. */
  get size(): number {
    let n = 1;
    for (const d of this.shape) n *= d;
    return n;
  }

  /** Rank (number of axes). */
  get rank(): number {
    return this.shape.length;
  }

  /** The interned node for this content; the only way to make a Node. */
  static make(op: Op, dtype: DType, shape: Shape, inputs: readonly Node[], attrs: Attrs = {}): Node {
    const key = `${op}|${dtype}|${shape.join(",")}|${inputs.map((i) => i.hash).join(",")}|${attrsKey(attrs)}`;
    const hash = createHash("sha1").update(key).digest("hex").slice(0, 24);
    const found = interned.get(hash)?.deref();
    if (found) return found;
    const node = new Node(op, dtype, Object.freeze([...shape]), Object.freeze([...inputs]), Object.freeze({ ...attrs }), hash);
    interned.set(hash, new WeakRef(node));
    registry.register(node, hash);
    return node;
  }

  /** The node in short, op:dtype[shape], for messages and logs. */
  toString(): string {
    return `${this.op}:${this.dtype}[${this.shape.join(",")}]`;
  }
}

// Weak references let graphs that nobody holds be collected, while equal live nodes stay shared.
const interned = new Map<string, WeakRef<Node>>();
const registry = new FinalizationRegistry<string>((hash) => {
  const ref = interned.get(hash);
  if (ref && ref.deref() === undefined) interned.delete(hash);
});

const arrayHashes = new WeakMap<Float64Array, string>();

function hashArray(a: Float64Array): string {
  let h = arrayHashes.get(a);
  if (h === undefined) {
    h = createHash("sha1").update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest("hex");
    arrayHashes.set(a, h);
  }
  return h;
}

function attrsKey(attrs: Attrs): string {
  const parts: string[] = [];
  for (const k of Object.keys(attrs).sort()) {
    const v = (attrs as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (v instanceof Float64Array) parts.push(`${k}=#${hashArray(v)}`);
    else if (k === "body") {
      const b = v as NonNullable<Attrs["body"]>;
      parts.push(`body=${b.nCarry}/${b.nX}/${b.nConst}:${b.outputs.map((o) => o.hash).join(",")}`);
    } else if (typeof v === "number") parts.push(`${k}=${Object.is(v, -0) ? "-0" : String(v)}`);
    else parts.push(`${k}=${JSON.stringify(v)}`);
  }
  return parts.join(";");
}

/** The body of a scan: a graph over `arg` leaves. Args: carries, then per-step slices of xs, then consts. */
export interface ScanBody {
  /** Carry outputs (same dtype and shape as the carry args), then per-step outputs ys. */
  readonly outputs: readonly Node[];
  readonly nCarry: number;
  readonly nX: number;
  readonly nConst: number;
}

/** Attributes by op; ops not listed take none. */
export interface Attrs {
  /** param, data: the name a value is bound to at run time. */
  name?: string;
  /** const: a scalar filling the shape, or the row-major values. */
  value?: number | Float64Array;
  /** arg: position in the enclosing scan body's argument list. */
  index?: number;
  /** arg: nesting depth of the scan body the arg belongs to. */
  depth?: number;
  /** reductions: sorted, distinct axes. */
  axes?: readonly number[];
  /** transpose: output axis i is input axis perm[i]. */
  perm?: readonly number[];
  /** slice: per-axis start, stop (exclusive) and positive step. */
  starts?: readonly number[];
  stops?: readonly number[];
  steps?: readonly number[];
  /** concat, gather, scatter_add, cumsum, argsort: the axis. */
  axis?: number;
  /** pad: per-axis [before, after] widths; padValue fills. */
  widths?: readonly (readonly [number, number])[];
  padValue?: number;
  /** cumsum: accumulate from the end. */
  reverse?: boolean;
  /** polygamma: the derivative order n of digamma (0 = digamma). */
  order?: number;
  /** betainc_grad: the shape the derivative of betainc(a, b, x) is taken in (0: a, 1: b). */
  wrt?: number;
  /** triangular_solve: the matrix is lower-triangular; solve with its transpose. */
  lower?: boolean;
  transposeA?: boolean;
  /** scan: the body graph and number of steps. */
  body?: ScanBody;
  length?: number;
  /** scan: iterate from the last step to the first. */
  reverseScan?: boolean;
  /** lpdf_sum: the distribution family whose log density is summed. */
  family?: LpdfFamily;
  /** scan: dtype and shape of each output (final carries, then stacked ys). */
  outputs?: readonly { dtype: DType; shape: readonly number[] }[];
}
