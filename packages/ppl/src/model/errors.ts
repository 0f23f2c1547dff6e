/** Data that do not match a model's data spec; the message names the key, what was expected and what came. */
export class DataError extends Error {
  override name = "DataError";
  constructor(
    /** The data key at fault ("" when the whole input is wrong). */
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

/** A mistake in a model's code (duplicate names, shape mismatches, bad distribution arguments); the message names the thing and the fix. */
export class ModelError extends Error {
  override name = "ModelError";
}
