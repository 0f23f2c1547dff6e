/**
 * argsort along one axis, shared by the reference interpreter and the compiled CPU backend.
 * Entries are ordered by (value, index) with NaN after every number: a total order, so the
 * result is the stable ascending sort whatever algorithm computes it (the GPU uses heapsort).
 */

/** The order argsort uses: is entry i (value a) before entry j (value b)? */
export function sortsBefore(a: number, i: number, b: number, j: number): boolean {
  if (Number.isNaN(a)) return Number.isNaN(b) && i < j;
  if (Number.isNaN(b)) return true;
  return a < b || (a === b && i < j);
}

/**
 * For each of the `outer` × `inner` lines of `d` entries of x (row-major, the line's stride
 * `inner`), write the indices that sort it into the same positions of out.
 */
export function argsortLines(
  x: ArrayLike<number>, xOff: number, out: { [i: number]: number }, outOff: number, outer: number, d: number, inner: number,
): void {
  const idx = new Array<number>(d);
  for (let p = 0; p < outer; p++) {
    for (let r = 0; r < inner; r++) {
      const base = p * d * inner + r;
      for (let t = 0; t < d; t++) idx[t] = t;
      idx.sort((i, j) => (sortsBefore(x[xOff + base + i * inner]!, i, x[xOff + base + j * inner]!, j) ? -1 : 1));
      for (let t = 0; t < d; t++) out[outOff + base + t * inner] = idx[t]!;
    }
  }
}
