/**
 * WebAssembly kernels for the long reductions of the compiled CPU path: the two matrix-vector
 * products of a regression's log density and gradient, X·β (a dot product per row of X) and Xᵀ·r
 * (rows of X scaled and added up). JavaScript runs them at about 1.5 ns per multiply-add, bounds
 * checks and all; these run X·β in about 60% of that and Xᵀ·r in about a third (two lanes of f64
 * SIMD, one output element per lane), see bench/RESULTS.md. Each output element gets the products
 * added in the same order as the JavaScript loops and the reference interpreter, so the results
 * are the same bits.
 *
 * The kernels work in one WebAssembly memory (an Arena): the data they read must be there already
 * (placed once, when a log density is built, and shared by every thread); small operands are
 * copied in for each call. The module is encoded here byte by byte rather than assembled by a
 * toolchain at run time: it is two loops, and a dependency for them would be larger than they are.
 */

/** Floats in a shared WebAssembly memory: what the kernels can read and write in place. */
export class Arena {
  readonly memory: WebAssembly.Memory;
  private static readonly byBuffer = new WeakMap<ArrayBufferLike, Arena>();

  private constructor(memory: WebAssembly.Memory) {
    this.memory = memory;
  }

  /** A new arena (shared memory, so that worker threads can adopt it). */
  static create(): Arena {
    return new Arena(new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true }));
  }

  /** The arena of a memory received from another thread. */
  static adopt(memory: WebAssembly.Memory): Arena {
    return new Arena(memory);
  }

  /** The arena an array lives in, if any. */
  static of(a: Float64Array): Arena | undefined {
    return Arena.byBuffer.get(a.buffer);
  }

  /** `length` doubles of fresh memory (grown for the purpose, so threads sharing the memory never collide). */
  alloc(length: number): Float64Array {
    const bytes = Math.max(8, length * 8);
    const before = this.memory.grow(Math.ceil(bytes / PAGE));
    return this.view(before * PAGE, length);
  }

  /** A view of `length` doubles at byte `offset`. */
  view(offset: number, length: number): Float64Array {
    const buffer = this.memory.buffer;
    Arena.byBuffer.set(buffer, this);
    return new Float64Array(buffer, offset, length);
  }
}

const PAGE = 65536;
// 4 GiB, wasm32's limit: a shared memory must declare its maximum, which costs address space only.
const MAX_PAGES = 65536;

/** The kernels of one arena, and a scratch region for operands that live elsewhere. */
export class WasmKernels {
  private readonly arena: Arena;
  private readonly dotRows: (a: number, b: number, out: number, rows: number, inner: number) => void;
  private readonly addRows: (a: number, b: number, out: number, rows: number, width: number) => void;
  private scratch: Float64Array;

  constructor(arena: Arena) {
    this.arena = arena;
    const exports = new WebAssembly.Instance(module(), { env: { mem: arena.memory } }).exports;
    this.dotRows = exports.dot_rows as typeof this.dotRows;
    this.addRows = exports.add_rows as typeof this.addRows;
    this.scratch = arena.alloc(1024);
  }

  /**
   * out[o + i] = Σ_l A[a + i·inner + l] · B[b + l] for i < rows (X·β, A's rows contiguous), when
   * A is in the arena; false (nothing done) otherwise, for the caller's JavaScript loop.
   */
  dot(A: Float64Array, a: number, B: Float64Array, b: number, out: Float64Array, o: number, rows: number, inner: number): boolean {
    if (Arena.of(A) !== this.arena) return false;
    const [bAt, outAt, outCopy] = this.place(B, b, inner, out, o, rows);
    this.dotRows(A.byteOffset + a * 8, bAt, outAt, rows, inner);
    if (outCopy) out.set(outCopy, o);
    return true;
  }

  /**
   * out[o + i] = Σ_l A[a + l·rows + i] · B[b + l] for i < rows (Xᵀ·r: the rows of X, scaled by r
   * and added in order of l), when A is in the arena; false otherwise.
   */
  dotTransposed(A: Float64Array, a: number, B: Float64Array, b: number, out: Float64Array, o: number, rows: number, inner: number): boolean {
    if (Arena.of(A) !== this.arena) return false;
    const [bAt, outAt, outCopy] = this.place(B, b, inner, out, o, rows);
    this.addRows(A.byteOffset + a * 8, bAt, outAt, inner, rows);
    if (outCopy) out.set(outCopy, o);
    return true;
  }

  // Byte offsets of B and out in the arena, copying B in and giving out a scratch place when they
  // live elsewhere (the copy goes back to out after the call).
  private place(B: Float64Array, b: number, bLength: number, out: Float64Array, o: number, outLength: number): [number, number, Float64Array | null] {
    const bIn = Arena.of(B) === this.arena;
    const outIn = Arena.of(out) === this.arena;
    const need = (bIn ? 0 : bLength) + (outIn ? 0 : outLength);
    if (need > this.scratch.length) this.scratch = this.arena.alloc(2 * need);
    const s = this.scratch;
    let bAt: number;
    if (bIn) bAt = B.byteOffset + b * 8;
    else {
      s.set(B.subarray(b, b + bLength));
      bAt = s.byteOffset;
    }
    if (outIn) return [bAt, out.byteOffset + o * 8, null];
    const from = bIn ? 0 : bLength;
    return [bAt, s.byteOffset + from * 8, s.subarray(from, from + outLength)];
  }
}

let compiled: WebAssembly.Module | null = null;

// The module: imports env.mem (shared), exports dot_rows and add_rows.
function module(): WebAssembly.Module {
  return (compiled ??= new WebAssembly.Module(encodeModule()));
}

// --- encoding -------------------------------------------------------------------------------

const I32 = 0x7f, F64 = 0x7c, V128 = 0x7b;
const op = {
  block: 0x02, loop: 0x03, end: 0x0b, br: 0x0c, brIf: 0x0d, get: 0x20, set: 0x21,
  i32Const: 0x41, i32Add: 0x6a, i32Mul: 0x6c, i32Shl: 0x74, i32GeU: 0x4f, i32LtU: 0x49, i32Sub: 0x6b,
  f64Const: 0x44, f64Add: 0xa0, f64Mul: 0xa2, f64Load: 0x2b, f64Store: 0x39, simd: 0xfd,
} as const;
// SIMD sub-opcodes (LEB128 after 0xfd).
const simd = { load: 0, store: 11, load64Splat: 10, f64x2Add: 240, f64x2Mul: 242 } as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

const str = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const simdOp = (code: number, ...rest: number[]): number[] => [op.simd, ...uleb(code), ...rest];
// memarg: alignment (log2) and offset.
const mem = (align: number): number[] => [align, 0];

// Locals: params 0-4 are (a, b, out, n, m) as i32; then the function's own.
function body(locals: [number, number][], code: number[]): number[] {
  const bytes = [...vec(locals.map(([count, type]) => [...uleb(count), type])), ...code, op.end];
  return [...uleb(bytes.length), ...bytes];
}

/**
 * dot_rows(a, b, out, rows, inner): out[i] = Σ_l A[i·inner + l]·B[l], l from 0 up (byte addresses).
 * Locals: 5 i, 6 l, 7 row address, 8 s (f64).
 */
function dotRows(): number[] {
  const [A, B, OUT, ROWS, INNER, I, L, ROW, S] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const g = (x: number) => [op.get, x];
  const set = (x: number) => [op.set, x];
  return body([[3, I32], [1, F64]], [
    op.block, 0x40, op.loop, 0x40,
    ...g(I), ...g(ROWS), op.i32GeU, op.brIf, 1,
    op.f64Const, 0, 0, 0, 0, 0, 0, 0, 0, ...set(S),
    op.i32Const, 0, ...set(L),
    ...g(A), ...g(I), ...g(INNER), op.i32Mul, op.i32Const, 3, op.i32Shl, op.i32Add, ...set(ROW),
    op.block, 0x40, op.loop, 0x40,
    ...g(L), ...g(INNER), op.i32GeU, op.brIf, 1,
    ...g(S),
    ...g(ROW), ...g(L), op.i32Const, 3, op.i32Shl, op.i32Add, op.f64Load, ...mem(3),
    ...g(B), ...g(L), op.i32Const, 3, op.i32Shl, op.i32Add, op.f64Load, ...mem(3),
    op.f64Mul, op.f64Add, ...set(S),
    ...g(L), op.i32Const, 1, op.i32Add, ...set(L),
    op.br, 0, op.end, op.end,
    ...g(OUT), ...g(I), op.i32Const, 3, op.i32Shl, op.i32Add, ...g(S), op.f64Store, ...mem(3),
    ...g(I), op.i32Const, 1, op.i32Add, ...set(I),
    op.br, 0, op.end, op.end,
  ]);
}

/**
 * add_rows(a, b, out, n, width): out[j] = 0, then out[j] += A[l·width + j]·B[l] for l from 0 up,
 * two j at a time (f64x2) and the odd one last. Locals: 5 l, 6 j bytes, 7 row address, 8 pair
 * end (bytes), 9 B[l] (v128), 10 scalar B[l] (f64).
 */
function addRows(): number[] {
  const [A, B, OUT, N, WIDTH, L, J, ROW, PAIRS, BV, BS] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  const g = (x: number) => [op.get, x];
  const set = (x: number) => [op.set, x];
  const widthBytes = [...g(WIDTH), op.i32Const, 3, op.i32Shl];
  return body([[4, I32], [1, V128], [1, F64]], [
    // pairs = (width & ~1) · 8
    ...g(WIDTH), op.i32Const, ...sleb(-2), 0x71 /* i32.and */, op.i32Const, 3, op.i32Shl, ...set(PAIRS),
    // out[0 … width) = 0
    op.i32Const, 0, ...set(J),
    op.block, 0x40, op.loop, 0x40,
    ...g(J), ...widthBytes, op.i32GeU, op.brIf, 1,
    ...g(OUT), ...g(J), op.i32Add, op.f64Const, 0, 0, 0, 0, 0, 0, 0, 0, op.f64Store, ...mem(3),
    ...g(J), op.i32Const, 8, op.i32Add, ...set(J),
    op.br, 0, op.end, op.end,
    op.block, 0x40, op.loop, 0x40,
    ...g(L), ...g(N), op.i32GeU, op.brIf, 1,
    ...g(B), ...g(L), op.i32Const, 3, op.i32Shl, op.i32Add, ...simdOp(simd.load64Splat, ...mem(3)), ...set(BV),
    ...g(B), ...g(L), op.i32Const, 3, op.i32Shl, op.i32Add, op.f64Load, ...mem(3), ...set(BS),
    ...g(A), ...g(L), ...widthBytes, op.i32Mul, op.i32Add, ...set(ROW),
    op.i32Const, 0, ...set(J),
    op.block, 0x40, op.loop, 0x40,
    ...g(J), ...g(PAIRS), op.i32GeU, op.brIf, 1,
    ...g(OUT), ...g(J), op.i32Add,
    ...g(OUT), ...g(J), op.i32Add, ...simdOp(simd.load, ...mem(3)),
    ...g(ROW), ...g(J), op.i32Add, ...simdOp(simd.load, ...mem(3)),
    ...g(BV), ...simdOp(simd.f64x2Mul), ...simdOp(simd.f64x2Add),
    ...simdOp(simd.store, ...mem(3)),
    ...g(J), op.i32Const, 16, op.i32Add, ...set(J),
    op.br, 0, op.end, op.end,
    // the odd last column
    op.block, 0x40,
    ...g(J), ...widthBytes, op.i32GeU, op.brIf, 0,
    ...g(OUT), ...g(J), op.i32Add,
    ...g(OUT), ...g(J), op.i32Add, op.f64Load, ...mem(3),
    ...g(ROW), ...g(J), op.i32Add, op.f64Load, ...mem(3), ...g(BS), op.f64Mul, op.f64Add,
    op.f64Store, ...mem(3),
    op.end,
    ...g(L), op.i32Const, 1, op.i32Add, ...set(L),
    op.br, 0, op.end, op.end,
  ]);
}

function encodeModule(): Uint8Array<ArrayBuffer> {
  const params = [I32, I32, I32, I32, I32];
  const type = section(1, vec([[0x60, ...vec(params.map((p) => [p])), 0]]));
  // env.mem: a shared memory with a maximum (limits flag 3), at least one page.
  const imports = section(2, vec([[...str("env"), ...str("mem"), 0x02, 0x03, ...uleb(1), ...uleb(MAX_PAGES)]]));
  const functions = section(3, vec([[0], [0]]));
  const exports = section(7, vec([[...str("dot_rows"), 0x00, 0], [...str("add_rows"), 0x00, 1]]));
  const code = section(10, vec([dotRows(), addRows()]));
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...imports, ...functions, ...exports, ...code]);
}
