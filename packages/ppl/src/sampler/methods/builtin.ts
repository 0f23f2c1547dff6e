/**
 * The methods a run can ask for by name, in any thread: a worker thread is sent a method's name
 * (functions do not cross threads) and finds it here.
 */
import { SamplerOptionError } from "../errors.ts";
import type { SamplingMethod } from "./method.ts";
import { chees, cheesUniform } from "./chees.ts";
import { meads } from "./meads.ts";
import { nuts } from "./nuts.ts";
import { randomWalk } from "./random-walk.ts";
import { staticHmc } from "./static-hmc.ts";

/** The shipped methods by name. */
export const builtinMethods: Readonly<Record<string, SamplingMethod<unknown>>> = {
  [nuts.name]: nuts,
  [staticHmc.name]: staticHmc,
  [randomWalk.name]: randomWalk,
  [chees.name]: chees,
  [cheesUniform.name]: cheesUniform,
  [meads.name]: meads,
};

/** A method given by name or as itself; a name must be a shipped method's. */
export function methodOf(method: SamplingMethod<unknown> | string): SamplingMethod<unknown> {
  if (typeof method !== "string") return method;
  const found = builtinMethods[method];
  if (!found) throw new SamplerOptionError(`method: no method named '${method}' (known: ${Object.keys(builtinMethods).join(", ")})`);
  return found;
}
