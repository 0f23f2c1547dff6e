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
