/** A Fit asked for something it does not hold (a variable the model lacks); the message names what it has. */
export class FitError extends Error {
  override name = "FitError";
}
