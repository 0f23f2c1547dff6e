import { add, param as paramLeaf, ShapeError, sum, type Node, type Operand, type Shape } from "@ppl/tensor";
import { broadcastShapes, lift } from "@ppl/tensor/internals";
import { censored } from "../distributions/censored.ts";
import { isDistribution, type Distribution } from "../distributions/distribution.ts";
import type { TruncationBounds } from "../distributions/truncated-normal.ts";
import { holdsDraws, sampleToShape } from "../distributions/sampling.ts";
import { constraintOfSupport } from "../transforms/from-support.ts";
import { real } from "../transforms/identity.ts";
import { isConstraint, type Transform } from "../transforms/transform.ts";
import { checkOperand, describeValue } from "./arguments.ts";
import { ModelError } from "./errors.ts";
import type { GeneratedFunction, GeneratedOptions } from "./generated.ts";
import { isValidName, type ModelBuilder, type ParamOptions } from "./model.ts";

/** A declared parameter: its transform and the placeholder leaf its unconstrained slice replaces at compile time. */
export interface DeclaredParam {
  readonly name: string;
  readonly shape: Shape;
  readonly transform: Transform;
  readonly prior: Distribution | undefined;
  /** True when the constraint was given (ParamOptions.constraint), false when it comes from the prior's support. */
  readonly explicitConstraint: boolean;
  /** Placeholder for this parameter's unconstrained values [unconstrainedSize]. */
  readonly leaf: Node;
  /** The constrained value as a function of `leaf` (and earlier parameters' leaves). */
  readonly value: Node;
}

/** A generated quantity as declared: its name, the shape of its value and how one draw's value is computed. */
export interface DeclaredQuantity {
  readonly name: string;
  readonly shape: Shape;
  readonly compute: GeneratedFunction;
}

/** An observe term as declared: the observed value and its distribution, which predictive draws sample. */
export interface DeclaredObservation {
  readonly value: Node;
  readonly distribution: Distribution;
  /** Shape of a predictive draw: the observed elements (the pointwise log density's shape), then the event axes. */
  readonly shape: Shape;
  /** The term as messages name it: observe(y, normal). */
  readonly label: string;
}

/** One term of the log density as declared: what messages call it, its value and where build declared it. */
export interface DeclaredTerm {
  /** The term as messages name it: observe(y, normal), the prior of parameter 'sigma'. */
  readonly label: string;
  /** Its (scalar) contribution to the log density. */
  readonly value: Node;
  /** For an observe term, the log density of each observed element. */
  readonly pointwise?: Node;
  /** Made where build declared the term: its stack names the line of the model file. */
  readonly site: Error;
}

/**
 * Observations of at least this many elements are summed by their distribution's fused node
 * (logpdfSum) in the log density the CPU evaluates. Below it the saving is within the noise
 * (bench/fused-density.ts), and small models keep the graph they had, bit for bit.
 */
export const FUSED_MIN_ENTRIES = 64;

/** The most entries one parameter may have (the longest typed array a graph value can be, with room to spare). */
const MAX_PARAM_ENTRIES = 2 ** 31 - 1;

/** Records what a model's build declares; the log density is the sum of `terms`. */
export class Recorder implements ModelBuilder {
  readonly params: DeclaredParam[] = [];
  readonly deterministics: { name: string; value: Node }[] = [];
  readonly terms: Node[] = [];
  /** The terms with their labels and declaration sites (parallel to `terms`). */
  readonly declaredTerms: DeclaredTerm[] = [];
  /** Fused replacements of some of `terms` (by index): long observations summed by one lpdf_sum node. */
  readonly fusedTerms = new Map<number, Node>();
  /** The log density of each observed element, one node per observe term (its sum is in `terms`). */
  readonly observed: Node[] = [];
  /** The observe terms, in declaration order (parallel to `observed`). */
  readonly observations: DeclaredObservation[] = [];
  /** Each factor term as messages name it: m.factor(add[8]). */
  readonly factors: string[] = [];
  /** The generated quantities, in declaration order. */
  readonly quantities: DeclaredQuantity[] = [];
  /**
   * Nodes of the generated quantities' distributions (their means): what they read from data is
   * checked with the rest of the model (indices), though they are evaluated only when drawn.
   */
  readonly quantityNodes: Node[] = [];
  private readonly names: Set<string>;

  constructor(private readonly modelName: string, dataNames: readonly string[]) {
    this.names = new Set(dataNames);
  }

  param(name: string, priorOrOpts?: Distribution | ParamOptions, maybeOpts?: ParamOptions): Node {
    this.claim(name, "parameter");
    const prior = isDistribution(priorOrOpts) ? priorOrOpts : undefined;
    if (priorOrOpts !== undefined && !prior && !isPlainObject(priorOrOpts)) {
      throw new ModelError(`parameter '${name}': the second argument must be a distribution (the prior) or an options object such as { shape: [3] }, got ${describeValue(priorOrOpts)}`);
    }
    if (maybeOpts !== undefined && !isPlainObject(maybeOpts)) {
      throw new ModelError(`parameter '${name}': the options must be an object such as { shape: [3] }, got ${describeValue(maybeOpts)}`);
    }
    if (priorOrOpts !== undefined && !prior && maybeOpts !== undefined) {
      throw new ModelError(`parameter '${name}': the second argument must be a distribution (the prior); write m.param("${name}", prior, options) or m.param("${name}", options)`);
    }
    const opts = prior ? (maybeOpts ?? {}) : ((priorOrOpts as ParamOptions | undefined) ?? {});
    for (const k of Object.keys(opts)) {
      if (k !== "shape" && k !== "constraint") throw new ModelError(`parameter '${name}': unknown option '${k}'; the options are shape and constraint`);
    }
    if (prior?.discrete) {
      throw new ModelError(`parameter '${name}': ${prior.name} is a distribution over integers; parameters must be continuous — marginalize the discrete variable or observe it as data`);
    }
    const shape = this.shapeOf(name, prior, opts.shape);
    if (opts.constraint !== undefined && !isConstraint(opts.constraint)) {
      throw new ModelError(`parameter '${name}': constraint must be made by positive(), lower(a), interval(a, b), simplex(), …`);
    }
    const constraint = opts.constraint ?? (prior ? constraintOfSupport(prior.support, prior.name) : real());
    let transform: Transform;
    try {
      transform = constraint.bind(shape);
    } catch (e) {
      if (e instanceof ModelError) throw new ModelError(`parameter '${name}': ${e.message}`);
      throw e;
    }
    const leaf = paramLeaf(`u:${name}`, [transform.unconstrainedSize]);
    const value = transform.forward(leaf);
    const site = new Error("declared here");
    this.addTerm({ label: `the constraint of parameter '${name}' (${transform.name})`, value: transform.logJacobian(leaf), site });
    if (prior) this.addTerm({ label: `the prior of parameter '${name}' (${prior.name})`, value: this.logpdfSum(`the prior of parameter '${name}'`, prior, value), site });
    this.params.push({ name, shape, transform, prior, explicitConstraint: opts.constraint !== undefined, leaf, value });
    return value;
  }

  deterministic(name: string, value: Operand): Node {
    this.claim(name, "deterministic");
    checkOperand(`deterministic '${name}'`, "value", value);
    const node = lift(value);
    this.deterministics.push({ name, value: node });
    return node;
  }

  observe(value: Operand, dist: Distribution): void {
    checkOperand("observe", "value", value);
    if (!isDistribution(dist)) throw new ModelError(`observe: the second argument must be a distribution, e.g. m.observe(d.y, normal(mu, sigma)), got ${describeValue(dist)}`);
    this.record(`observe(${describe(value)}, ${dist.name})`, dist, value);
  }

  observeCensored(value: Operand, dist: Distribution, bounds: TruncationBounds): void {
    checkOperand("observeCensored", "value", value);
    if (!isDistribution(dist)) throw new ModelError("observeCensored: the second argument must be a distribution, e.g. m.observeCensored(d.t, weibull(k, s), { upper: d.c })");
    if (typeof bounds !== "object" || bounds === null) throw new ModelError("observeCensored: the third argument gives the limits, e.g. { upper: d.c }");
    // The censored distribution stands in for dist everywhere an observe term is read: its
    // pointwise log density is each element's censored likelihood (the log_lik that LOO uses) and
    // its draws are replicates censored at the same limits (the predictive draws).
    this.record(`observeCensored(${describe(value)}, ${dist.name})`, censored(dist, bounds), value);
  }

  // An observe term: its pointwise log density, what predictive draws sample, and its sum in the log density.
  private record(label: string, dist: Distribution, value: Operand): void {
    const pointwise = this.logpdf(label, dist, value);
    this.observed.push(pointwise);
    this.observations.push({ value: lift(value), distribution: dist, shape: [...pointwise.shape, ...dist.eventShape], label });
    this.addTerm({ label, value: sum(pointwise), pointwise, site: new Error("declared here") });
    const fused = pointwise.size >= FUSED_MIN_ENTRIES && dist.logpdfSum ? dist.logpdfSum(value) : undefined;
    if (fused) this.fusedTerms.set(this.terms.length - 1, fused);
  }

  factor(term: Operand): void {
    checkOperand("m.factor", "term", term);
    const label = `m.factor(${describe(term)})`;
    this.factors.push(label);
    this.addTerm({ label, value: sum(lift(term)), site: new Error("declared here") });
  }

  private addTerm(t: DeclaredTerm): void {
    this.terms.push(t.value);
    this.declaredTerms.push(t);
  }

  generated(name: string, quantity: Distribution | GeneratedFunction, opts: GeneratedOptions = {}): void {
    this.claim(name, "generated quantity");
    if (typeof opts !== "object" || opts === null) throw new ModelError(`generated quantity '${name}': the options must be an object such as { shape: [d.N] }`);
    for (const k of Object.keys(opts)) {
      if (k !== "shape") throw new ModelError(`generated quantity '${name}': unknown option '${k}'; the option is shape`);
    }
    if (opts.shape !== undefined) this.checkShape(`generated quantity '${name}'`, opts.shape);
    if (isDistribution(quantity)) {
      const own = [...quantity.batchShape, ...quantity.eventShape];
      const shape = opts.shape !== undefined ? [...opts.shape] : own;
      if (!holdsDraws(quantity, shape)) {
        throw new ModelError(`generated quantity '${name}': its distribution ${quantity.name} has shape [${own.join(",")}], which does not fit the shape [${shape.join(",")}]; give a shape that ends with [${own.join(",")}], or leave it out`);
      }
      this.quantities.push({ name, shape, compute: (draw, rng) => sampleToShape(quantity, shape, rng, draw)! });
      const mean = meanOf(quantity);
      if (mean !== undefined) this.quantityNodes.push(mean);
      return;
    }
    if (typeof quantity !== "function") {
      throw new ModelError(`generated quantity '${name}': the second argument must be a distribution or a function (draw, rng) => value, e.g. m.generated("${name}", normal(mu, sigma))`);
    }
    this.quantities.push({ name, shape: opts.shape !== undefined ? [...opts.shape] : [], compute: quantity });
  }

  get(name: string): Node {
    const p = this.params.find((x) => x.name === name);
    if (p) return p.value;
    const d = this.deterministics.find((x) => x.name === name);
    if (d) return d.value;
    const known = [...this.params.map((x) => x.name), ...this.deterministics.map((x) => x.name)];
    throw new ModelError(`get: no parameter or deterministic named '${name}' has been declared yet (declared: ${known.join(", ") || "none"}); declare it before using it`);
  }

  /** Sum of all log-density terms; with `fused`, long observations enter as their fused nodes. */
  total(fused = false): Node {
    return this.terms.map((t, i) => (fused ? (this.fusedTerms.get(i) ?? t) : t)).reduce((a, b) => add(a, b), lift(0));
  }

  private claim(name: string, what: string): void {
    if (typeof name !== "string" || !isValidName(name)) {
      throw new ModelError(`${what} name '${String(name)}' is not an identifier; use letters, digits and _ starting with a letter`);
    }
    // Stan reserves names ending in __ for the sampler's own columns (lp__, stepsize__, …): a
    // parameter of such a name would duplicate a CSV column or be read back as one.
    if (name.endsWith("__")) {
      throw new ModelError(`model '${this.modelName}': the ${what} name '${name}' is reserved (names ending in __ are the sampler's columns, such as lp__ and stepsize__); rename it`);
    }
    if (this.names.has(name)) throw new ModelError(`model '${this.modelName}': the name '${name}' is used twice; give the ${what} another name`);
    this.names.add(name);
  }

  private checkShape(what: string, given: Shape): void {
    if (!Array.isArray(given) || given.some((d) => !Number.isInteger(d) || d < 0)) {
      throw new ModelError(`${what}: shape must be a list of non-negative integers, got ${JSON.stringify(given)}`);
    }
    // Sizes usually come from the data (d.J): an absurd one is named here, not as a failed allocation later.
    const entries = given.reduce((a, b) => a * b, 1);
    if (entries > MAX_PARAM_ENTRIES) {
      throw new ModelError(`${what}: shape [${given.join(",")}] has ${entries} entries, more than ${MAX_PARAM_ENTRIES}; check the data values that size it`);
    }
  }

  private shapeOf(name: string, prior: Distribution | undefined, given: Shape | undefined): Shape {
    if (given !== undefined) {
      this.checkShape(`parameter '${name}'`, given);
      if (prior) {
        const priorShape = [...prior.batchShape, ...prior.eventShape];
        const ev = prior.eventShape;
        const tailOk = ev.every((d, i) => given[given.length - ev.length + i] === d);
        let ok = tailOk && given.length >= ev.length;
        if (ok) {
          try {
            const b = broadcastShapes("param", priorShape, given);
            ok = b.length === given.length && b.every((d, i) => d === given[i]);
          } catch {
            ok = false;
          }
        }
        if (!ok) {
          throw new ModelError(`parameter '${name}': its prior ${prior.name} has shape [${priorShape.join(",")}], which does not fit the parameter's shape [${given.join(",")}]; make the prior's arguments scalars or of shape [${given.join(",")}]`);
        }
      }
      return [...given];
    }
    return prior ? [...prior.batchShape, ...prior.eventShape] : [];
  }

  private logpdfSum(what: string, dist: Distribution, value: Operand): Node {
    return sum(this.logpdf(what, dist, value));
  }

  private logpdf(what: string, dist: Distribution, value: Operand): Node {
    try {
      return dist.logpdf(value);
    } catch (e) {
      if (e instanceof ShapeError) {
        throw new ModelError(`${what}: the value's shape [${lift(value).shape.join(",")}] does not match the distribution's shape [${[...dist.batchShape, ...dist.eventShape].join(",")}] (${e.message})`);
      }
      throw e;
    }
  }
}

// A distribution's mean as a node, or undefined where it has none (a probe of what it reads, not a value used).
function meanOf(d: Distribution): Node | undefined {
  try {
    return d.mean?.();
  } catch {
    return undefined;
  }
}

function isPlainObject(x: unknown): x is object {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function describe(x: Operand): string {
  if (typeof x === "number") return String(x);
  return x.op === "data" || x.op === "param" ? String(x.attrs.name) : `${x.op}[${x.shape.join(",")}]`;
}

