import { type Node, type Operand, type Shape } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution, Support } from "./distribution.ts";

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
  for (const key of Object.keys(opts)) {
    if (!["support", "eventShape", "name"].includes(key)) throw new ModelError(`custom: unknown option '${key}'; the options are support, eventShape, name`);
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
