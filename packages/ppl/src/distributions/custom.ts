import { type Node, type Operand, type Shape } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution, Support } from "./distribution.ts";
import { describeValue } from "../model/arguments.ts";

/** Options of a custom distribution. */
export interface CustomOptions {
  /** Support, used to pick a transform when the distribution is a parameter's prior (default: real). */
  support?: Support;
  /** Event shape of one draw (default: scalar). */
  eventShape?: Shape;
  /** The name used in messages. */
  name?: string;
}

/** A distribution given by its log density alone (a user-written term); it cannot be sampled. */
export function custom(logpdf: (x: Node) => Node, opts: CustomOptions = {}): Distribution {
  if (typeof logpdf !== "function") throw new ModelError(`custom: the first argument must be a function x => log density, got ${describeValue(logpdf)}`);
  if (typeof opts !== "object" || opts === null || Array.isArray(opts)) throw new ModelError(`custom: the options must be an object such as { support: { kind: "positive" } }, got ${describeValue(opts)}`);
  for (const key of Object.keys(opts)) {
    if (!["support", "eventShape", "name"].includes(key)) throw new ModelError(`custom: unknown option '${key}'; the options are support, eventShape, name`);
  }
  if (opts.name !== undefined && typeof opts.name !== "string") throw new ModelError(`custom: 'name' must be a string, got ${describeValue(opts.name)}`);
  if (opts.eventShape !== undefined && !(Array.isArray(opts.eventShape) && opts.eventShape.every((d) => Number.isInteger(d) && d >= 0))) {
    throw new ModelError(`custom: 'eventShape' must be a list of non-negative integers, got ${describeValue(opts.eventShape)}`);
  }
  if (opts.support !== undefined && !(typeof opts.support === "object" && opts.support !== null && typeof (opts.support as { kind?: unknown }).kind === "string")) {
    throw new ModelError(`custom: 'support' must be a support such as { kind: "positive" }, got ${describeValue(opts.support)}`);
  }
  const name = opts.name ?? "custom";
  return {
    name,
    support: opts.support ?? { kind: "real" },
    discrete: false,
    batchShape: [],
    eventShape: opts.eventShape ?? [],
    logpdf: (x: Operand) => logpdf(lift(x)),
    sample: () => {
      throw new ModelError(`${name}: a custom distribution has no sampler; sample its quantities another way or use a built-in distribution`);
    },
  };
}
