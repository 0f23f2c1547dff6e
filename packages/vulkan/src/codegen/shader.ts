import { type DType, type Node } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";
import { ExprRenderer } from "./expr.ts";
import { bufferType, glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import { isScratch, type Access, type Binding, type KernelPlan, type ShaderParts, type SlicedValue } from "./kernel-plan.ts";
import type { RenderLimits } from "./limits.ts";
import { sliceSumRead } from "./slice-read.ts";
import type { Storage } from "./storage.ts";

export { isScratch, type Access, type Binding, type KernelPlan, type ScratchBuffer, type ShaderParts } from "./kernel-plan.ts";

/**
 * One shader being written: its binding table (buffers numbered in order of first use, with how
 * the shader uses each), the storage that reads stored nodes from those buffers, and an expression
 * renderer over it.
 */
export class ShaderBuilder {
  readonly bindings: Binding[] = [];
  readonly storage: Storage;
  readonly r: ExprRenderer;
  private readonly access = new Map<Binding, Access>();

  private sums = 0;

  /**
   * `half`: stored nodes whose buffers hold 16-bit floats; every read converts to the node's dtype.
   * `sliced`: nodes held as partial sums, which a read adds up where it is (inline-slices.ts).
   */
  constructor(isStored: (n: Node) => boolean, private readonly half: ReadonlySet<Node> = new Set(), sliced: ReadonlyMap<Node, SlicedValue> = new Map()) {
    this.storage = {
      read: (n, idx, scope) => {
        const v = sliced.get(n);
        if (v) return sliceSumRead((b) => this.bind(b, "read"), n, v, idx, scope, `ppl_sl${this.sums++}`);
        if (!isStored(n)) return undefined;
        const e = `${this.bind(n, "read")}[${flatten(n.shape, idx)}]`;
        // GL_EXT_shader_16bit_storage allows only conversions of float16_t: widen at the load.
        if (this.half.has(n)) return halfRead(e, n.dtype);
        return n.dtype === "bool" ? `(${e} != 0)` : e;
      },
      write: (n, flat, value) => `${this.bind(n, "write")}[${flat}] = ${n.dtype === "bool" ? `int(${value})` : value};`,
    };
    this.r = new ExprRenderer(this.storage);
  }

  /** The GLSL array of a binding (`b3.v`), adding it to the table on first use; `access` says whether this use reads or writes it. */
  bind(b: Binding, access: Access): string {
    let i = this.bindings.indexOf(b);
    if (i < 0) i = this.bindings.push(b) - 1;
    const before = this.access.get(b);
    this.access.set(b, before === undefined || before === access ? access : "readwrite");
    return `b${i}.v`;
  }

  /** How the shader uses a binding, over all its uses so far. */
  accessOf(b: Binding): Access {
    return this.access.get(b) ?? "readwrite";
  }

  /** The bindings of this shader declared float16_t. */
  halfBindings(): ReadonlySet<Binding> {
    return new Set(this.bindings.filter((b) => !isScratch(b) && this.half.has(b)));
  }
}

/** The extension a kernel with float16_t buffers requires. */
export const HALF_STORAGE_EXTENSION = "GL_EXT_shader_16bit_storage";

/** GLSL converting a float16_t element `e` to a value of `dtype` (f64 by way of float, the conversion the extension defines). */
export function halfRead(e: string, dtype: DType): string {
  if (dtype === "f32") return `float(${e})`;
  if (dtype === "f64") return `double(float(${e}))`;
  throw new Error(`codegen: only float data may be stored in 16 bits, not ${dtype}`);
}

// Memory qualifiers of a buffer declaration. `restrict` is valid because every binding of a kernel
// is a distinct buffer (KernelPlan's contract); with it and readonly/writeonly the compiler may keep
// loads in flight across other units' stores and use the read-only data path.
const QUALIFIERS: Record<Access, string> = { read: "readonly restrict ", write: "writeonly restrict ", readwrite: "restrict " };

/**
 * The declaration of array b`i` of a shader, at binding `binding` (i unless the shader binds other
 * buffers before its own); `half` declares its elements float16_t.
 */
export function bufferDeclaration(b: Binding, i: number, access: Access, half = false, binding = i): string {
  const coherent = isScratch(b) && b.shared ? "coherent " : "";
  const element = half ? "float16_t" : bufferType(b.dtype);
  return `layout(std430, set = 0, binding = ${binding}) ${coherent}${QUALIFIERS[access]}buffer Buf${i} { ${element} v[]; } b${i};${isScratch(b) ? ` // scratch: ${b.label}` : ""}`;
}

/** The complete GLSL of a shader and its dispatch size. */
export function assemble(parts: ShaderParts, shader: ShaderBuilder, limits: RenderLimits, prelude: (dtypes: ReadonlySet<DType>) => string): KernelPlan {
  const { node, localSize, workgroups } = parts;
  const gx = Math.max(1, Math.min(workgroups, limits.maxGroupCountX));
  const gy = Math.max(1, Math.ceil(workgroups / gx));
  const dtypes = new Set<DType>([...shader.bindings.map((b) => b.dtype), node.dtype]);
  for (const n of toposortAll([node])) dtypes.add(n.dtype);
  const half = shader.halfBindings();
  const decls = shader.bindings.map((b, i) => bufferDeclaration(b, i, shader.accessOf(b), half.has(b)));
  const extensions = [...(parts.extensions ?? []), ...(half.size > 0 ? [HALF_STORAGE_EXTENSION] : [])];
  const source = [
    "#version 450",
    ...extensions.map((e) => `#extension ${e} : require`),
    `// kernel for ${node.op} ${glslType(node.dtype)}[${node.shape.join(",")}] (node ${node.hash})${parts.title ? `: ${parts.title}` : ""}`,
    `layout(local_size_x = ${localSize}) in;`,
    ...decls,
    ...(parts.shared ?? []),
    prelude(dtypes),
    "void main() {",
    `  int gid = int(gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x);`,
    `  if (gid >= ${workgroups}) return;`,
    ...parts.main.map((l) => `  ${l}`),
    "}",
    "",
  ].join("\n");
  const access = shader.bindings.map((b) => shader.accessOf(b));
  return {
    node, nodes: [node], source, units: parts.units, localSize, bindings: shader.bindings, groups: [gx, gy], merge: { parts, access, dtypes },
    ...(half.size > 0 ? { half } : {}),
  };
}

/** All nodes under `outputs`, scan bodies included (their dtypes count too). */
export function toposortAll(outputs: readonly Node[]): Node[] {
  const all: Node[] = [];
  for (const n of toposort(outputs)) {
    all.push(n);
    if (n.op === "scan") all.push(...toposortAll(n.attrs.body!.outputs));
  }
  return all;
}
