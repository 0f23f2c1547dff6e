/** A shape mismatch found while building a graph; the message names the op and the shapes. */
export class ShapeError extends Error {
  override name = "ShapeError";
}

/** A dtype mismatch found while building a graph. */
export class DTypeError extends Error {
  override name = "DTypeError";
}

/** A graph that cannot be evaluated: a missing input value, an unsupported op on a backend. */
export class GraphError extends Error {
  override name = "GraphError";
}

/**
 * An index of gather or scatter_add outside its axis: `value` at flat entry `entry` of the index
 * tensor (when known), for an axis of `size` positions. Backends raise it when they can see the
 * index values (the CPU paths at run time, the Vulkan codegen for indices fixed at build time and
 * index data at bind time) rather than clamping or dropping the entry.
 */
export class IndexRangeError extends GraphError {
  override name = "IndexRangeError";
  constructor(
    readonly op: string,
    readonly value: number,
    readonly size: number,
    readonly entry?: number,
    readonly source?: string,
  ) {
    const at = entry === undefined ? "" : ` (entry ${entry} of ${source ?? "the indices"})`;
    super(
      `${op}: index ${value} is out of range [0, ${size})${at}; indices are 0-based positions along the axis — ` +
        `subtract 1 from 1-based (Stan-style) indices, or fix the index data`,
    );
  }
}
