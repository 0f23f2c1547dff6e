import type { Node } from "../ir/node.ts";

/**
 * A vector-Jacobian product rule for an op with one output: given the node and the cotangent
 * of its output, the cotangent of each input (null where the input gets none: integer or bool
 * inputs, or an input the output does not depend on smoothly). Every returned cotangent has
 * exactly its input's shape and dtype. `needed` says which inputs lie on a path to the variables
 * being differentiated, so a rule with no derivative in some input can refuse just those.
 */
export type VjpRule = (node: Node, ct: Node, needed?: readonly boolean[]) => (Node | null)[];

/** The reverse-mode transform itself, handed to rules that differentiate subgraphs (scan bodies). */
export type VjpFn = (outputs: readonly Node[], cotangents: readonly (Node | null)[], wrt: readonly Node[]) => Node[];

/**
 * A rule for an op with several outputs (scan): one cotangent or null per output; `needed` says
 * which inputs want a cotangent, so the rule can leave the others out of the graph it builds.
 */
export type TupleVjpRule = (node: Node, cts: readonly (Node | null)[], needed: readonly boolean[], vjp: VjpFn) => (Node | null)[];
