import type { Node } from "@ppl/tensor";
import type { ExprRenderer } from "./expr.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";

/** What a unit of work needs: the renderer, the storage, and a way to run a scan body. */
export interface UnitContext {
  readonly r: ExprRenderer;
  readonly storage: Storage;
  /** Render a scan node (a whole recurrence) into `scope`. */
  scan(node: Node, scope: Scope): void;
}

/**
 * How a materialized node is computed, as independent units of work: one output element for
 * maps, reductions, matmuls and scatter_adds over a segment layout (scatter-units.ts), one line
 * for cumsum and argsort, one matrix for cholesky, slogdet and eigh, one right-hand column for triangular
 * and general solves (linalg-units.ts), one whole
 * recurrence for scan or a scatter_add without a layout. On the device a unit is a thread;
 * inside a single-thread program (scan bodies) the units run in a loop.
 */
export interface UnitWriter {
  readonly units: number;
  /** Emit the code of unit `u` (a GLSL int expression) into `scope`. */
  emit(u: string, scope: Scope, ctx: UnitContext): void;
}
