import { SamplerOptionError } from "@ppl/ppl";
import type { Node, TensorValue } from "@ppl/tensor";
import { FLOAT16_MAX, roundToFloat16, toFloat16Bytes } from "@ppl/vulkan";

/** How the GPU sampler stores float data on the device: in the run's dtype, or rounded to 16-bit floats. */
export type DataPrecision = "exact" | "f16";

/**
 * Float data leaves with at least this many elements are stored in 16 bits under "f16". Smaller
 * ones (scalars, group-level predictors, per-group tables) cost little bandwidth and stay exact:
 * rounding them would add error for no measurable gain.
 */
export const HALF_DATA_MIN = 4096;

/** The option `dataPrecision: "f16"` cannot be honoured; the message says what to change. */
export class DataPrecisionError extends SamplerOptionError {
  /** Why: the device lacks 16-bit storage, or a data value lies beyond the 16-bit range. */
  readonly reason: "no-16bit-storage" | "out-of-range";
  constructor(reason: "no-16bit-storage" | "out-of-range", message: string) {
    super(message);
    this.name = "DataPrecisionError";
    this.reason = reason;
  }
}

/** Throws DataPrecisionError when "f16" is asked of a device without storageBuffer16BitAccess. */
export function checkDataPrecision(device: { readonly name: string; readonly features: { readonly storageBuffer16BitAccess?: boolean } }, precision: DataPrecision): void {
  if (precision === "f16" && device.features.storageBuffer16BitAccess !== true) {
    throw new DataPrecisionError(
      "no-16bit-storage",
      `device '${device.name}' lacks 16-bit storage (storageBuffer16BitAccess), which data precision f16 needs: drop --data-precision f16 (dataPrecision: "f16") to store the data exactly`,
    );
  }
}

/** Bound data values by name (a compiled model's dataBindings). */
export type DataValues = Readonly<Record<string, { readonly data: ArrayLike<number> }>>;

/**
 * The data leaves under `outputs` stored in 16 bits: none for "exact"; for "f16", the float leaves
 * of HALF_DATA_MIN elements or more whose values are bound in `bindings`, except integer-valued
 * ones that binary16 cannot hold exactly. Integer data (counts, group indices cast to i32, 0/1
 * outcomes) are float leaves here; rounding an index past 2048 would move it to another group, so
 * integers are never rounded: stored in 16 bits only when every value is exact there (|v| ≤ 2048).
 */
export function halfDataLeaves(outputs: readonly Node[], precision: DataPrecision, bindings: DataValues): Set<Node> {
  const half = new Set<Node>();
  if (precision !== "f16") return half;
  const seen = new Set<Node>();
  const stack = [...outputs];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (n.op === "data" && (n.dtype === "f32" || n.dtype === "f64") && n.size >= HALF_DATA_MIN) {
      const values = bindings[n.attrs.name!]?.data;
      if (values !== undefined && !integersBeyondHalf(values)) half.add(n);
    }
    // Scan bodies are not entered: a data leaf read only inside one stays exact (safe, if no smaller).
    stack.push(...n.inputs);
  }
  return half;
}

// True when every value is an integer and some are not exact in binary16 (beyond ±2048 not all are).
function integersBeyondHalf(values: ArrayLike<number>): boolean {
  let beyond = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v)) return false;
    if (!beyond && roundToFloat16(v) !== v) beyond = true;
  }
  return beyond;
}

/** Data values as a float16_t buffer's bytes; throws DataPrecisionError for a finite value beyond ±65504 (it would become infinite). */
export function halfDataBytes(name: string, values: ArrayLike<number>): Uint16Array {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isFinite(v) && Math.abs(v) > FLOAT16_MAX) {
      throw new DataPrecisionError(
        "out-of-range",
        `data '${name}' holds ${v} (element ${i}), beyond the 16-bit float range ±${FLOAT16_MAX}: drop --data-precision f16 (dataPrecision: "f16"), or rescale the data`,
      );
    }
  }
  return toFloat16Bytes(values);
}

/** The log line of a run with data precision f16: which data are stored in 16 bits. */
export function halfDataNote(half: ReadonlySet<Node>): string {
  const names = [...half].map((n) => `${n.attrs.name} [${n.shape.join("×")}]`).sort();
  return names.length === 0
    ? `data precision f16: no float data of ${HALF_DATA_MIN} elements or more (integers only where exact in 16 bits), so every data value is stored exactly`
    : `data precision f16: ${names.join(", ")} stored in 16 bits (each element rounded, relative error ≤ 2^-11; integers exact) and computed in the run's dtype; the other data exact`;
}

/**
 * The model with the data that `precision` stores in 16 bits replaced by their rounded values, for
 * the host's own evaluations (initialization, step-size searches): a transition starts from the lp
 * and gradient the host hands over, and over 10^5 rounded rows the exact data's lp differs by far
 * more than the sampler's tolerance, so host and device must see the same posterior.
 */
export function roundedDataModel<M extends { readonly logDensity: Node; readonly dataBindings: Readonly<Record<string, TensorValue>> }>(model: M, precision: DataPrecision): M {
  const half = halfDataLeaves([model.logDensity], precision, model.dataBindings);
  if (half.size === 0) return model;
  const dataBindings: Record<string, TensorValue> = { ...model.dataBindings };
  for (const n of half) {
    const name = n.attrs.name!;
    const bound = dataBindings[name];
    if (bound) dataBindings[name] = { ...bound, data: Float64Array.from(bound.data, roundToFloat16) };
  }
  return { ...model, dataBindings };
}
