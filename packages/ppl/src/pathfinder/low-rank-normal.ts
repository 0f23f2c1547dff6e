/**
 * The normal approximation Pathfinder forms at an L-BFGS iterate (Zhang, Carpenter, Gelman &
 * Vehtari 2022, Algorithms 2 and 4): mean x − H·g, covariance H, the inverse-Hessian estimate of
 * L-BFGS in Byrd, Nocedal & Schnabel's compact form, a diagonal plus a rank-2m term,
 *
 *   H = α + [αY  Nᵀ] [[0, I], [I, YᵀαY + D]] [αY  Nᵀ]ᵀ,  N = −R⁻¹Sᵀ,
 *
 * with S, Y the last m pairs (columns), R the upper triangle of SᵀY, D its diagonal and α the
 * diagonal estimate (a vector). Written as H = α^½ (I + W̄ M W̄ᵀ) α^½ with W̄ = [α^½Y  α^-½Nᵀ] and
 * W̄ = Q R̄ (thin QR), a draw costs O(n·m) and the log-determinant comes from the Cholesky factor L
 * of the 2m×2m matrix I + R̄ M R̄ᵀ: x = μ + α^½ (Q (L − I) Qᵀ u + u) for u standard normal has
 * covariance H exactly. Stan switches to the explicit n×n H when 2m ≥ n; this form is the same
 * distribution for any n (Q is then square), so it is the only one here.
 */
import { cholesky } from "../optimize/linalg.ts";
import { thinQr } from "./householder-qr.ts";

const LOG_TWO_PI = Math.log(2 * Math.PI);

/** A normal N(center, H) with H in the factored diagonal-plus-low-rank form above. */
export interface LowRankNormal {
  readonly dim: number;
  readonly center: Float64Array;
  /** The diagonal α of H's first term. */
  readonly alpha: Float64Array;
  /** Q: dim×rank, row-major, orthonormal columns. */
  readonly q: Float64Array;
  /** L: rank×rank lower triangular, L Lᵀ = I + R̄ M R̄ᵀ. */
  readonly l: Float64Array;
  readonly rank: number;
  /** log det of H's Cholesky factor: ½ log det H. */
  readonly logDetCholH: number;
}

/**
 * The approximation at x (objective gradient g, i.e. of −log p) from the pairs s = Δx, y = Δg
 * (oldest first) and the diagonal α; null where the pairs give an H that is not positive definite.
 */
export function lowRankNormal(x: Float64Array, g: Float64Array, alpha: Float64Array, s: readonly Float64Array[], y: readonly Float64Array[]): LowRankNormal | null {
  const n = x.length;
  const m = s.length;
  const { nMat, c } = compactFactors(alpha, s, y);
  // W̄ (n × 2m, row-major): α^½ Y, then α^-½ Nᵀ.
  const p = 2 * m;
  const w = new Float64Array(n * p);
  for (let i = 0; i < n; i++) {
    const ra = Math.sqrt(alpha[i]!);
    for (let j = 0; j < m; j++) {
      w[i * p + j] = ra * y[j]![i]!;
      w[i * p + m + j] = nMat[j * n + i]! / ra;
    }
  }
  const { q, r, rank: k } = thinQr(w, n, p);
  // R̄ M (k × 2m): M = [[0, I], [I, C]].
  const rm = new Float64Array(k * p);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < m; j++) {
      rm[i * p + j] = r[i * p + m + j]!;
      let t = r[i * p + j]!;
      for (let l = 0; l < m; l++) t += r[i * p + m + l]! * c[l * m + j]!;
      rm[i * p + m + j] = t;
    }
  }
  const t = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let v = i === j ? 1 : 0;
      for (let l = 0; l < p; l++) v += rm[i * p + l]! * r[j * p + l]!;
      t[i * k + j] = v;
    }
  }
  for (let i = 0; i < k; i++) for (let j = 0; j < i; j++) t[i * k + j] = t[j * k + i] = 0.5 * (t[i * k + j]! + t[j * k + i]!);
  const l = cholesky(t, k);
  if (l === null) return null;
  let logDet = 0;
  for (let i = 0; i < k; i++) logDet += Math.log(l[i * k + i]!);
  for (let i = 0; i < n; i++) logDet += 0.5 * Math.log(alpha[i]!);
  const hg = applyH(g, alpha, y, nMat, c);
  const center = new Float64Array(n);
  for (let i = 0; i < n; i++) center[i] = x[i]! - hg[i]!;
  if (!Number.isFinite(logDet) || !center.every(Number.isFinite)) return null;
  return { dim: n, center, alpha: Float64Array.from(alpha), q, l, rank: k, logDetCholH: logDet };
}

/** One draw from the approximation for the standard normal u (length dim), into `out`; returns its log density there (lp_approx__). */
export function drawLowRankNormal(a: LowRankNormal, u: Float64Array, out: Float64Array): number {
  const { dim: n, rank: k, q, l } = a;
  const v = qtMul(a, u);
  const w = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let t = -v[i]!;
    for (let j = 0; j <= i; j++) t += l[i * k + j]! * v[j]!;
    w[i] = t;
  }
  let uu = 0;
  for (let i = 0; i < n; i++) {
    let t = u[i]!;
    for (let j = 0; j < k; j++) t += q[i * k + j]! * w[j]!;
    out[i] = a.center[i]! + Math.sqrt(a.alpha[i]!) * t;
    uu += u[i]! ** 2;
  }
  return -a.logDetCholH - 0.5 * (uu + n * LOG_TWO_PI);
}

/** The approximation's log density at x (normalized). */
export function lowRankLogDensity(a: LowRankNormal, x: Float64Array): number {
  const { dim: n, rank: k, l } = a;
  const z = new Float64Array(n);
  let zz = 0;
  for (let i = 0; i < n; i++) {
    z[i] = (x[i]! - a.center[i]!) / Math.sqrt(a.alpha[i]!);
    zz += z[i]! ** 2;
  }
  // H⁻¹ = α^-½ (I + Q ((L Lᵀ)⁻¹ − I) Qᵀ) α^-½: the quadratic form is zᵀz − vᵀv + ‖L⁻¹v‖², v = Qᵀz.
  const v = qtMul(a, z);
  let quad = zz;
  const f = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    let t = v[i]!;
    for (let j = 0; j < i; j++) t -= l[i * k + j]! * f[j]!;
    f[i] = t / l[i * k + i]!;
    quad += f[i]! ** 2 - v[i]! ** 2;
  }
  return -a.logDetCholH - 0.5 * (quad + n * LOG_TWO_PI);
}

/** The covariance H as an explicit dim×dim row-major matrix (for checks; draws never form it). */
export function lowRankCovariance(a: LowRankNormal): Float64Array {
  const { dim: n, rank: k, q, l } = a;
  // Q (L Lᵀ − I) Qᵀ, then I added and α^½ on both sides.
  const llt = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      let t = i === j ? -1 : 0;
      for (let r = 0; r <= Math.min(i, j); r++) t += l[i * k + r]! * l[j * k + r]!;
      llt[i * k + j] = t;
    }
  }
  const h = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let t = i === j ? 1 : 0;
      for (let r = 0; r < k; r++) for (let c = 0; c < k; c++) t += q[i * k + r]! * llt[r * k + c]! * q[j * k + c]!;
      h[i * n + j] = Math.sqrt(a.alpha[i]! * a.alpha[j]!) * t;
    }
  }
  return h;
}

// N = −R⁻¹Sᵀ (m×n, row-major) with R the upper triangle of SᵀY, and C = YᵀαY + D (m×m).
function compactFactors(alpha: Float64Array, s: readonly Float64Array[], y: readonly Float64Array[]): { nMat: Float64Array; c: Float64Array } {
  const m = s.length;
  const n = alpha.length;
  const r = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = i; j < m; j++) r[i * m + j] = dot(s[i]!, y[j]!);
  const nMat = new Float64Array(m * n);
  for (let col = 0; col < n; col++) {
    for (let i = m - 1; i >= 0; i--) {
      let t = -s[i]![col]!;
      for (let j = i + 1; j < m; j++) t -= r[i * m + j]! * nMat[j * n + col]!;
      nMat[i * n + col] = t / r[i * m + i]!;
    }
  }
  const c = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let t = i === j ? r[i * m + i]! : 0;
      for (let d = 0; d < n; d++) t += y[i]![d]! * alpha[d]! * y[j]![d]!;
      c[i * m + j] = t;
    }
  }
  return { nMat, c };
}

// H·g = αg + αY(Ng) + Nᵀ(Yᵀαg) + NᵀC(Ng), in O(n·m).
function applyH(g: Float64Array, alpha: Float64Array, y: readonly Float64Array[], nMat: Float64Array, c: Float64Array): Float64Array {
  const n = g.length;
  const m = y.length;
  const ag = new Float64Array(n);
  for (let i = 0; i < n; i++) ag[i] = alpha[i]! * g[i]!;
  const ng = new Float64Array(m);
  const yag = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let a = 0;
    for (let i = 0; i < n; i++) a += nMat[j * n + i]! * g[i]!;
    ng[j] = a;
    yag[j] = dot(y[j]!, ag);
  }
  const coef = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    let t = yag[j]!;
    for (let l = 0; l < m; l++) t += c[j * m + l]! * ng[l]!;
    coef[j] = t;
  }
  const out = Float64Array.from(ag);
  for (let i = 0; i < n; i++) {
    let t = 0;
    for (let j = 0; j < m; j++) t += y[j]![i]! * ng[j]! * alpha[i]! + nMat[j * n + i]! * coef[j]!;
    out[i] = out[i]! + t;
  }
  return out;
}

function qtMul(a: LowRankNormal, u: Float64Array): Float64Array {
  const { dim: n, rank: k, q } = a;
  const v = new Float64Array(k);
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) v[j] = v[j]! + q[i * k + j]! * u[i]!;
  return v;
}

function dot(a: Float64Array, b: Float64Array): number {
  let t = 0;
  for (let i = 0; i < a.length; i++) t += a[i]! * b[i]!;
  return t;
}
