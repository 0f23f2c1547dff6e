/**
 * What a run's data were to its model, written into every CSV header so that `ppl export` can lay
 * the data out as ArviZ expects without loading the model again: which data an observe term
 * conditions on (observed_data, named after the data field, as the predictive draws y_rep and the
 * log_lik entries of that term are), and which fields are integers (kept as int64).
 *
 *   # observed = y[8]             an observe of the whole data field y, 8 elements
 *   # observed = y[8] obs2~[4|3]  a second term observing an expression: 4 pointwise entries, events of 3
 *   # int_data = J,N
 */
import { PREDICTIVE_SUFFIX, predictiveNames } from "../generate/generated.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { Model } from "../model/model.ts";
import type { ConfigNode } from "./config.ts";
import { hashObserved } from "./observed-hash.ts";

/** One observe term of a model: its name (the data field it observes, or obsK), whether that is a whole data field, and its shapes. */
export interface ObservedTerm {
  /** The observed data field, or obsK (K its 1-based position) for a term that observes an expression. */
  readonly name: string;
  /** True when the term observes the whole data field `name`. */
  readonly field: boolean;
  /** The shape of the log_lik entries of the term (one per element, or per event of a multivariate distribution). */
  readonly pointwise: readonly number[];
  /** The shape of one event (empty for a univariate distribution): each predictive draw has shape [...pointwise, ...event]. */
  readonly event: readonly number[];
}

/** What the header says about the data; undefined keys where it says nothing (CmdStan's files, older runs). */
export interface DataLayout {
  readonly observed?: readonly ObservedTerm[];
  readonly intData?: ReadonlySet<string>;
}

/**
 * The header keys of a run: `observed` (every observe term), `int_data` (the integer data fields)
 * and, when every observe term observes a whole data field, `observed_hash` (see observed-hash.ts).
 */
export function dataLayoutKeys(model: Model, compiled: CompiledModel): LayoutKeys {
  // Once per compiled model: the header of every chain asks (2000 chains would hash the data 2000 times).
  let keys = cache.get(compiled);
  if (keys === undefined) cache.set(compiled, (keys = layoutKeysOf(model, compiled)));
  return keys;
}

/** The header keys of the data layout, as dataLayoutKeys gives them. */
// A type alias, not an interface: it is handed on as the header's string record of keys.
export type LayoutKeys = {
  readonly observed: string;
  readonly int_data: string;
  readonly observed_hash?: string;
};

const cache = new WeakMap<CompiledModel, LayoutKeys>();

/** The observe terms of a compiled model, in declaration order (the order of its log_lik entries). */
export function observedTerms(compiled: CompiledModel): ObservedTerm[] {
  const names = predictiveNames(compiled).map((n) => n.slice(0, -PREDICTIVE_SUFFIX.length));
  return compiled.recorded.observations.map((o, k): ObservedTerm => {
    const event = o.distribution.eventShape;
    return {
      name: names[k]!,
      field: o.value.op === "data" && String(o.value.attrs.name) === names[k],
      pointwise: o.shape.slice(0, o.shape.length - event.length),
      event: [...event],
    };
  });
}

/** The data layout of a model with its data, as readDataLayout reads it back from the header dataLayoutKeys writes. */
export function dataLayoutOf(model: Model, compiled: CompiledModel): Required<DataLayout> {
  return { observed: observedTerms(compiled), intData: new Set(integerFields(model)) };
}

const integerFields = (model: Model): string[] => Object.entries(model.data).filter(([, f]) => f.integer).map(([k]) => k);

function layoutKeysOf(model: Model, compiled: CompiledModel): LayoutKeys {
  const terms = observedTerms(compiled);
  const ints = integerFields(model);
  const fields = terms.every((t) => t.field && compiled.data[t.name] !== undefined) ? terms.map((t) => ({ name: t.name, value: compiled.data[t.name]! })) : undefined;
  return { observed: terms.map(formatTerm).join(" "), int_data: ints.join(","), ...(fields !== undefined && fields.length > 0 ? { observed_hash: hashObserved(fields) } : {}) };
}

/** The header keys as config lines, for a header built node by node. */
export function layoutNodes(keys: Readonly<Record<string, string>>): ConfigNode[] {
  return Object.entries(keys).map(([key, value]) => ({ key, value }));
}

/** The layout a CSV header records (from its config keys). */
export function readDataLayout(config: Readonly<Record<string, string>>): DataLayout {
  const text = config["observed"];
  const observed = text !== undefined ? parseTerms(text) : undefined;
  const ints = config["int_data"];
  return {
    ...(observed !== undefined ? { observed } : {}),
    ...(ints !== undefined ? { intData: new Set(ints.split(",").filter((s) => s !== "")) } : {}),
  };
}

function formatTerm(t: ObservedTerm): string {
  const dims = t.pointwise.join(",") + (t.event.length > 0 ? `|${t.event.join(",")}` : "");
  return `${t.name}${t.field ? "" : "~"}[${dims}]`;
}

const TERM = /^([A-Za-z_][\w.]*)(~?)\[([\d,]*)(?:\|([\d,]+))?\]$/;

function parseTerms(text: string): ObservedTerm[] | undefined {
  const out: ObservedTerm[] = [];
  for (const part of text.split(/\s+/).filter((s) => s !== "")) {
    const m = TERM.exec(part);
    // A value this tool did not write: the export falls back to what the columns say.
    if (m === null) return undefined;
    const ints = (s: string | undefined): number[] => (s === undefined || s === "" ? [] : s.split(",").map(Number));
    out.push({ name: m[1]!, field: m[2] === "", pointwise: ints(m[3]), event: ints(m[4]) });
  }
  return out;
}
