import { describe, expect, it } from "vitest";
import fc from "fast-check";
import {
  addLeaf,
  chainContext,
  ChainBatch,
  driveBatch,
  hamiltonian,
  initTermination,
  integrate,
  leapfrogBegin,
  leapfrogEnd,
  logAddExp,
  mergedTrajectoryContinues,
  Metric,
  noUTurn,
  NutsTransition,
  resetTermination,
  sample,
  type BatchedDensity,
} from "../src/sampler/index.ts";
import { Purpose, seedKey, streamNormals, streamUniform, type SeedKey } from "../src/random/index.ts";

const v = (...xs: number[]): Float64Array => Float64Array.from(xs);

/** Gaussian with precision matrix A (row-major): lp = −½ qᵀAq. */
function gaussian(precision: Float64Array, dim: number): BatchedDensity {
  return {
    dim,
    logpGrad(q, lp, grad, active) {
      for (let c = 0; c < lp.length; c++) {
        if (active && !active[c]) continue;
        let s = 0;
        for (let i = 0; i < dim; i++) {
          let g = 0;
          for (let j = 0; j < dim; j++) g += precision[i * dim + j]! * q[c * dim + j]!;
          grad[c * dim + i] = -g;
          s += q[c * dim + i]! * g;
        }
        lp[c] = -0.5 * s;
      }
    },
  };
}

/** Random symmetric positive definite precision B·Bᵀ + dim·I·scale. */
function randomPrecision(dim: number, entries: number[], scale: number): Float64Array {
  const b = entries.slice(0, dim * dim);
  const a = new Float64Array(dim * dim);
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < dim; j++) {
      let s = 0;
      for (let k = 0; k < dim; k++) s += b[i * dim + k]! * b[j * dim + k]!;
      a[i * dim + j] = scale * (s + (i === j ? 0.5 : 0));
    }
  }
  return a;
}

/** One NUTS transition of one chain from q0; returns the machine and the batch (row 0 holds the sample). */
function oneTransition(
  density: BatchedDensity,
  q0: Float64Array,
  metric: Metric,
  key: SeedKey,
  iteration: number,
  eps: number,
  maxDepth = 10,
): { nuts: NutsTransition; batch: ChainBatch } {
  const batch = new ChainBatch(1, density.dim);
  batch.q.set(q0);
  density.logpGrad(batch.q, batch.lp, batch.grad);
  const nuts = new NutsTransition(chainContext(batch, { row: 0, id: 0 }, key, metric), { maxDepth, maxDeltaH: 1000 });
  batch.active[0] = nuts.begin(iteration, eps) ? 1 : 0;
  driveBatch(density, batch, [nuts]);
  return { nuts, batch };
}

interface RefTree {
  lsw: number;
  rho: Float64Array;
  sharpBeg: Float64Array;
  sharpEnd: Float64Array;
  pBeg: Float64Array;
  pEnd: Float64Array;
}

/**
 * A direct transcription of Stan's recursive base_nuts (≥ 2.21) trajectory
 * building — same directions (Tree u0), same momentum — without the
 * multinomial sampling, which does not influence the trajectory.
 */
function stanReference(
  density: BatchedDensity,
  metric: Metric,
  q0: Float64Array,
  key: SeedKey,
  iteration: number,
  eps: number,
  maxDepth: number,
): { nLeapfrog: number; depth: number; acceptStat: number; divergent: boolean } {
  const dim = density.dim;
  const z = { q: Float64Array.from(q0), p: new Float64Array(dim), lp: new Float64Array(1), grad: new Float64Array(dim) };
  density.logpGrad(z.q, z.lp, z.grad);
  const normals = new Float64Array(dim);
  streamNormals(key, 0, iteration, Purpose.Momentum, 0, normals);
  metric.momentumFromNormals(normals, z.p);
  const scratch = new Float64Array(dim);
  const H = (): number => hamiltonian(z.lp[0]!, z.grad, z.p, metric, scratch);
  const sharpOf = (p: Float64Array): Float64Array => {
    const out = new Float64Array(dim);
    metric.velocity(p, out);
    return out;
  };
  const add = (a: Float64Array, b: Float64Array): Float64Array => a.map((x, i) => x + b[i]!);
  type Point = { q: Float64Array; p: Float64Array; lp: Float64Array; grad: Float64Array };
  const copyPoint = (s: Point): Point => ({
    q: Float64Array.from(s.q),
    p: Float64Array.from(s.p),
    lp: Float64Array.from(s.lp),
    grad: Float64Array.from(s.grad),
  });
  const assign = (dst: Point, src: Point): void => {
    dst.q.set(src.q);
    dst.p.set(src.p);
    dst.lp.set(src.lp);
    dst.grad.set(src.grad);
  };
  const H0 = H();
  let nLeapfrog = 0;
  let sumMetro = 0;
  let divergent = false;

  const buildTree = (depth: number, sign: number, out: RefTree): boolean => {
    if (depth === 0) {
      leapfrogBegin(z.q, z.p, z.grad, sign * eps, metric, scratch);
      density.logpGrad(z.q, z.lp, z.grad);
      leapfrogEnd(z.p, z.grad, sign * eps);
      nLeapfrog++;
      const h = H();
      if (h - H0 > 1000) divergent = true;
      out.lsw = logAddExp(out.lsw, H0 - h);
      sumMetro += H0 - h > 0 ? 1 : Math.exp(H0 - h);
      out.sharpBeg = sharpOf(z.p);
      out.sharpEnd = out.sharpBeg;
      out.rho = add(out.rho, z.p);
      out.pBeg = Float64Array.from(z.p);
      out.pEnd = out.pBeg;
      return !divergent;
    }
    const fresh = (): RefTree => ({
      lsw: -Infinity,
      rho: new Float64Array(dim),
      sharpBeg: new Float64Array(dim),
      sharpEnd: new Float64Array(dim),
      pBeg: new Float64Array(dim),
      pEnd: new Float64Array(dim),
    });
    const init = fresh();
    if (!buildTree(depth - 1, sign, init)) return false;
    const final = fresh();
    if (!buildTree(depth - 1, sign, final)) return false;
    out.lsw = logAddExp(out.lsw, logAddExp(init.lsw, final.lsw));
    const rhoSubtree = add(init.rho, final.rho);
    out.rho = add(out.rho, rhoSubtree);
    out.sharpBeg = init.sharpBeg;
    out.pBeg = init.pBeg;
    out.sharpEnd = final.sharpEnd;
    out.pEnd = final.pEnd;
    let persist = noUTurn(init.sharpBeg, final.sharpEnd, rhoSubtree);
    persist &&= noUTurn(init.sharpBeg, final.sharpBeg, add(init.rho, final.pBeg));
    persist &&= noUTurn(init.sharpEnd, final.sharpEnd, add(final.rho, init.pEnd));
    return persist;
  };

  const zFwd = copyPoint(z);
  const zBck = copyPoint(z);
  let pFwdFwd: Float64Array = Float64Array.from(z.p);
  let sFwdFwd: Float64Array = sharpOf(z.p);
  let pFwdBck: Float64Array = Float64Array.from(z.p);
  let sFwdBck: Float64Array = sharpOf(z.p);
  let pBckFwd: Float64Array = Float64Array.from(z.p);
  let sBckFwd: Float64Array = sharpOf(z.p);
  let pBckBck: Float64Array = Float64Array.from(z.p);
  let sBckBck: Float64Array = sharpOf(z.p);
  let rho: Float64Array = Float64Array.from(z.p);
  let depth = 0;
  while (depth < maxDepth) {
    let rhoFwd: Float64Array = new Float64Array(dim);
    let rhoBck: Float64Array = new Float64Array(dim);
    let valid: boolean;
    const sub: RefTree = {
      lsw: -Infinity,
      rho: new Float64Array(dim),
      sharpBeg: new Float64Array(dim),
      sharpEnd: new Float64Array(dim),
      pBeg: new Float64Array(dim),
      pEnd: new Float64Array(dim),
    };
    if (streamUniform(key, 0, iteration, Purpose.Tree, 0, depth, 0) > 0.5) {
      assign(z, zFwd);
      rhoBck = rho;
      pBckFwd = pFwdFwd;
      sBckFwd = sFwdFwd;
      valid = buildTree(depth, 1, sub);
      sFwdBck = sub.sharpBeg;
      sFwdFwd = sub.sharpEnd;
      rhoFwd = sub.rho;
      pFwdBck = sub.pBeg;
      pFwdFwd = sub.pEnd;
      assign(zFwd, z);
    } else {
      assign(z, zBck);
      rhoFwd = rho;
      pFwdBck = pBckBck;
      sFwdBck = sBckBck;
      valid = buildTree(depth, -1, sub);
      sBckFwd = sub.sharpBeg;
      sBckBck = sub.sharpEnd;
      rhoBck = sub.rho;
      pBckFwd = sub.pBeg;
      pBckBck = sub.pEnd;
      assign(zBck, z);
    }
    if (!valid) break;
    depth++;
    rho = add(rhoBck, rhoFwd);
    let persist = noUTurn(sBckBck, sFwdFwd, rho);
    persist &&= noUTurn(sBckBck, sFwdBck, add(rhoBck, pFwdBck));
    persist &&= noUTurn(sBckFwd, sFwdFwd, add(rhoFwd, pBckFwd));
    if (!persist) break;
  }
  return { nLeapfrog, depth, acceptStat: sumMetro / nLeapfrog, divergent };
}

describe("no-U-turn criterion", () => {
  it("continues while both ends move along rho", () => {
    expect(noUTurn(v(1, 0), v(1, 1), v(2, 1))).toBe(true);
    expect(noUTurn(v(1, 0), v(-1, 0), v(0.5, 0))).toBe(false);
    // A zero projection counts as a U-turn (strict inequality, as Stan).
    expect(noUTurn(v(1, 0), v(0, 1), v(0, 1))).toBe(false);
  });

  it("stops a 1-D subtree whose second pair reverses", () => {
    // Leaves p = 2, 1, 0.5, −3 (unit metric): pair [0.5, −3] has rho = −2.5 and 0.5·(−2.5) < 0.
    const t = initTermination(1, 4);
    resetTermination(t, 2);
    expect(addLeaf(t, 0, v(2), v(2))).toBe(true);
    expect(addLeaf(t, 1, v(1), v(1))).toBe(true); // pair [2, 1]: rho 3, both ends positive
    expect(addLeaf(t, 2, v(0.5), v(0.5))).toBe(true);
    expect(addLeaf(t, 3, v(-3), v(-3))).toBe(false);
  });

  it("catches a U-turn that only the seam check across the merged halves sees", () => {
    // Hand-checked with unit metric:
    //   pairs [p0,p1] = rho (2,0) and [p2,p3] = rho (0,2) pass;
    //   whole block rho (2,2): p0·rho = 2 > 0, p3·rho = 8 > 0 passes;
    //   seam rho_init + p2 = (−1,1): p0·(−1,1) = −1 < 0 fails.
    const p = [v(1, 0), v(1, 0), v(-3, 1), v(3, 1)];
    expect(noUTurn(p[0]!, p[3]!, v(2, 2))).toBe(true);
    const t = initTermination(2, 4);
    resetTermination(t, 2);
    for (let n = 0; n < 3; n++) expect(addLeaf(t, n, p[n]!, p[n]!)).toBe(true);
    expect(addLeaf(t, 3, p[3]!, p[3]!)).toBe(false);
  });

  it("applies the seam checks when a subtree is merged onto the trajectory", () => {
    // Old trajectory = the first two leaves above, new subtree = the last two: only the seam fails.
    const scratch = new Float64Array(2);
    const ok = mergedTrajectoryContinues(v(2, 0), v(1, 0), v(1, 0), v(1, 0), v(0, 2), v(-3, 1), v(-3, 1), v(3, 1), scratch);
    expect(ok).toBe(false);
    // Mirror image (time reversed): now only the other seam, rho_new + p_old_inner, fails.
    const mirrored = mergedTrajectoryContinues(v(0, 2), v(3, 1), v(-3, 1), v(-3, 1), v(2, 0), v(1, 0), v(1, 0), v(1, 0), scratch);
    expect(mirrored).toBe(false);
    const fine = mergedTrajectoryContinues(v(2, 0), v(1, 0), v(1, 0), v(1, 0), v(2, 0.5), v(1, 0.2), v(1, 0.2), v(1, 0.3), scratch);
    expect(fine).toBe(true);
  });

  it("agrees with a recursive transcription of Stan's subtree checks on random momenta", () => {
    const dim = 2;
    const recursive = (ps: Float64Array[], lo: number, hi: number): boolean => {
      // Valid iff every merged block in [lo, hi) passes, as Stan's build_tree.
      if (hi - lo === 1) return true;
      const mid = (lo + hi) / 2;
      if (!recursive(ps, lo, mid) || !recursive(ps, mid, hi)) return false;
      const sum = (a: number, b: number): Float64Array => {
        const r = new Float64Array(dim);
        for (let i = a; i < b; i++) for (let d = 0; d < dim; d++) r[d] = r[d]! + ps[i]![d]!;
        return r;
      };
      const plus = (a: Float64Array, b: Float64Array): Float64Array => a.map((x, i) => x + b[i]!);
      return (
        noUTurn(ps[lo]!, ps[hi - 1]!, sum(lo, hi)) &&
        noUTurn(ps[lo]!, ps[mid]!, plus(sum(lo, mid), ps[mid]!)) &&
        noUTurn(ps[mid - 1]!, ps[hi - 1]!, plus(sum(mid, hi), ps[mid - 1]!))
      );
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5 }),
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 64, maxLength: 64 }),
        (depth, xs) => {
          const n = 1 << depth;
          // A drifting sequence so that both outcomes occur.
          const ps = Array.from({ length: n }, (_, i) => v(1 + xs[2 * i]! * 1.5, xs[2 * i + 1]! * 3));
          // Iterative: the first leaf at which the checks fail (or n).
          const t = initTermination(dim, 6);
          resetTermination(t, depth);
          let failedAt = n;
          for (let i = 0; i < n; i++) {
            if (!addLeaf(t, i, ps[i]!, ps[i]!)) {
              failedAt = i;
              break;
            }
          }
          // Recursive: Stan stops at the first failing block, which ends at the earliest leaf.
          let expected = n;
          for (let end = 1; end <= n && expected === n; end++) {
            for (let size = 2; size <= n; size *= 2) {
              if (end % size === 0 && !recursive(ps, end - size, end)) {
                expected = end - 1;
                break;
              }
            }
          }
          expect(failedAt).toBe(expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("NUTS transition", () => {
  it("builds exactly the trajectory of Stan's recursive algorithm", () => {
    const dim = 3;
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 9, maxLength: 9 }),
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: 3, maxLength: 3 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.02, max: 2.5, noNaN: true }),
        fc.boolean(),
        (b, q, iteration, eps, dense) => {
          const precision = randomPrecision(dim, b, 1);
          const density = gaussian(precision, dim);
          const metric = dense
            ? new Metric("dense", dim, v(1.5, 0.3, 0, 0.3, 1, 0.2, 0, 0.2, 0.7))
            : new Metric("diag", dim, v(1, 0.5, 2));
          const key = seedKey(77);
          const q0 = Float64Array.from(q);
          const { nuts } = oneTransition(density, q0, metric, key, iteration, eps, 6);
          const ref = stanReference(density, metric, q0, key, iteration, eps, 6);
          expect(nuts.nLeapfrog).toBe(ref.nLeapfrog);
          expect(nuts.treeDepth).toBe(ref.depth);
          expect(nuts.divergent).toBe(ref.divergent);
          expect(nuts.acceptStat).toBeCloseTo(ref.acceptStat, 12);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("matches Stan's recursion where the seam checks decide (anisotropic Gaussians)", () => {
    // On these targets the seam checks end many trajectories early; dropping any one of them fails here.
    for (const dim of [2, 5]) {
      const precision = new Float64Array(dim * dim);
      for (let i = 0; i < dim; i++) precision[i * dim + i] = i + 1;
      const density = gaussian(precision, dim);
      const metric = new Metric("diag", dim);
      const key = seedKey(77);
      for (let k = 0; k < 150; k++) {
        const q0 = new Float64Array(dim).map((_, i) => 1.5 * Math.sin(7 * k + i));
        const eps = 0.5 + ((0.618 * k) % 1);
        const { nuts } = oneTransition(density, q0, metric, key, k, eps);
        const ref = stanReference(density, metric, q0, key, k, eps, 10);
        expect([nuts.nLeapfrog, nuts.treeDepth]).toEqual([ref.nLeapfrog, ref.depth]);
        expect(nuts.acceptStat).toBeCloseTo(ref.acceptStat, 12);
      }
    }
  });

  it("keeps trajectory ends that are 2^depth − 1 reversible leapfrog steps apart", () => {
    const dim = 2;
    const density = gaussian(v(2, 0.9, 0.9, 1), dim);
    const metric = new Metric("diag", dim, v(0.7, 1.2));
    const eps = 0.3;
    for (let iteration = 0; iteration < 20; iteration++) {
      const { nuts } = oneTransition(density, v(0.4, -1.1), metric, seedKey(5), iteration, eps);
      const steps = (1 << nuts.treeDepth) - 1;
      const z = { q: Float64Array.from(nuts.state.qMinus), p: Float64Array.from(nuts.state.pMinus), lp: new Float64Array(1), grad: new Float64Array(dim) };
      density.logpGrad(z.q, z.lp, z.grad);
      integrate(density, z, eps, metric, steps);
      for (let i = 0; i < dim; i++) {
        expect(z.q[i]).toBeCloseTo(nuts.state.qPlus[i]!, 10);
        expect(z.p[i]).toBeCloseTo(nuts.state.pPlus[i]!, 10);
      }
      // And back: negate the momentum and integrate to the backward end.
      for (let i = 0; i < dim; i++) z.p[i] = -z.p[i]!;
      integrate(density, z, eps, metric, steps);
      for (let i = 0; i < dim; i++) {
        expect(z.q[i]).toBeCloseTo(nuts.state.qMinus[i]!, 10);
        expect(-z.p[i]!).toBeCloseTo(nuts.state.pMinus[i]!, 10);
      }
    }
  });

  it("is deterministic given (seed, chain, iteration)", () => {
    const density = gaussian(v(1, 0.5, 0.5, 2), 2);
    const run = () => oneTransition(density, v(0.3, 0.2), new Metric("diag", 2), seedKey(9), 17, 0.4);
    const a = run();
    const b = run();
    expect(Array.from(a.batch.q)).toEqual(Array.from(b.batch.q));
    expect(a.nuts.nLeapfrog).toBe(b.nuts.nLeapfrog);
    expect(a.nuts.energy).toBe(b.nuts.energy);
  });

  it("flags a divergence at a cliff and stays at a finite point", () => {
    // Standard normal for q < 1, then a wall whose gradient throws the integrator off.
    const cliff: BatchedDensity = {
      dim: 1,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          const x = q[c]!;
          const wall = x > 1 ? 1e6 * (x - 1) : 0;
          lp[c] = -0.5 * x * x - wall * (x - 1);
          grad[c] = -x - (x > 1 ? 2e6 * (x - 1) : 0);
        }
      },
    };
    let divergences = 0;
    for (let iteration = 0; iteration < 20; iteration++) {
      const { nuts, batch } = oneTransition(cliff, v(0.9), new Metric("diag", 1), seedKey(3), iteration, 0.5);
      if (nuts.divergent) {
        divergences++;
        expect(nuts.nLeapfrog).toBeLessThanOrEqual(1 << nuts.treeDepth);
      }
      expect(Number.isFinite(batch.q[0]!)).toBe(true);
      expect(Number.isFinite(batch.lp[0]!)).toBe(true);
      expect(batch.q[0]!).toBeLessThan(1.01);
    }
    expect(divergences).toBeGreaterThan(0);
  });

  it("treats a non-finite log density as divergent", () => {
    // Support q > 0 only: every trajectory that crosses 0 diverges, nothing outside is ever sampled.
    const halfLine: BatchedDensity = {
      dim: 1,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          const x = q[c]!;
          lp[c] = x > 0 ? Math.log(x) - x : -Infinity;
          grad[c] = x > 0 ? 1 / x - 1 : 0;
        }
      },
    };
    const r = sample(halfLine, { chains: 2, warmup: 200, draws: 200, seed: 4, init: v(1) });
    for (const d of r.draws) for (const x of d) expect(x).toBeGreaterThan(0);
    const divergent = r.stats.reduce((s, st) => s + st.divergent.reduce((a, b) => a + b, 0), 0);
    expect(divergent).toBeGreaterThan(0);
  });

  it("stops at the maximum tree depth", () => {
    // A tiny step on a wide Gaussian never U-turns within 2^3 − 1 steps.
    const { nuts } = oneTransition(gaussian(v(1e-4), 1), v(0), new Metric("diag", 1), seedKey(1), 0, 1e-3, 3);
    expect(nuts.treeDepth).toBe(3);
    expect(nuts.nLeapfrog).toBe(7);
    expect(nuts.acceptStat).toBeGreaterThan(0.99);
  });
});
