import type { Node } from "../../ir/node.ts";
import { EXP_SHARING, sharedExpSource, type ExpSharingOp } from "../scalar.ts";

/**
 * One loop body's shared exp(−|x|) (cpu/scalar.ts' EXP_SHARING): softplus, sigmoid and
 * log_sigmoid of the same operand, or of its negation, compute the exponential once. An ordered
 * or binary logistic likelihood and its gradient take softplus(d) and sigmoid(d) of each
 * predictor; each exp saved is a transcendental call per element.
 */
export interface ExpSharing {
  /** Record that local `name` is the negation of operand `arg` (exp(−|−x|) is exp(−|x|)). */
  noteNeg(name: string, arg: string): void;
  /** Node `n`'s (local number `id`) expression from its operand, the statements it needs first pushed to `body`; undefined when it does not share. */
  expr(n: Node, id: number, arg: string, body: string[]): string | undefined;
}

const SHARING = new Set<string>(Object.keys(EXP_SHARING));
const NAME = /^[A-Za-z_$][\w$]*$/;
const NUMBER = /^\(?-?[\d.][\d.e+-]*\)?$/;

/** The sharing state of one loop body; `stored`: the arrays the body writes (reads of those are never shared). */
export function expSharing(stored: ReadonlySet<string>): ExpSharing {
  const negOf = new Map<string, string>();
  const expOf = new Map<string, string>();
  const readsStored = (text: string) => [...stored].some((a) => text.includes(`${a}[`));
  return {
    noteNeg(name, arg) {
      if (!readsStored(arg)) negOf.set(name, arg);
    },
    expr(n, id, arg, body) {
      if (!SHARING.has(n.op) || n.dtype !== "f64" || readsStored(arg)) return undefined;
      let a = arg;
      // An array read is read once: the expressions name their operand up to four times.
      if (!NAME.test(a) && !NUMBER.test(a)) {
        a = `a${id}`;
        body.push(`const ${a} = ${arg};`);
      }
      let key = arg;
      for (let k = negOf.get(key); k !== undefined; k = negOf.get(key)) key = k;
      let e = expOf.get(key);
      if (e === undefined) {
        e = `e${id}`;
        expOf.set(key, e);
        body.push(`const ${e} = ${sharedExpSource(key === arg ? a : key)};`);
      }
      return EXP_SHARING[n.op as ExpSharingOp](a, e);
    },
  };
}
