/**
 * InferenceData groups written as netCDF4 (HDF5 underneath) through h5wasm, the HDF5 C library
 * compiled to WebAssembly (no native build, works offline). netCDF4 is HDF5 with conventions: a
 * dimension is a dataset made a dimension scale, here holding its 0-based integer coords, and each
 * variable attaches the scales of its dims; xarray and ArviZ open each group by its path.
 */
import { libraryVersion } from "../version.ts";
import { SLAB_VALUES, type InferenceGroup, type InferenceVariable } from "./inference-data.ts";

type H5 = typeof import("h5wasm/node");

let loaded: Promise<H5> | undefined;

// Loaded on first use: the WebAssembly module takes a moment, and only writing or reading a netCDF file needs it.
async function h5(): Promise<H5> {
  loaded ??= import("h5wasm/node").then(async (m) => {
    await m.ready;
    return m;
  });
  return loaded;
}

/** Attributes of every group, as ArviZ writes them. */
export interface GroupAttributes {
  readonly [key: string]: string;
}

/** Writes the groups to `path` (replacing it) as one netCDF4 file; variables of draws a slab of at most `slabValues` values at a time. */
export async function writeNetcdf(path: string, groups: readonly InferenceGroup[], attrs: GroupAttributes, slabValues = SLAB_VALUES): Promise<void> {
  const { File } = await h5();
  // Creation order tracked, as netCDF-C writes its own files: readers list variables in that order.
  const file = new File(path, "w", { track_order: true });
  try {
    for (const g of groups) {
      const h = file.create_group(g.name, true);
      for (const [key, value] of Object.entries(attrs)) h.create_attribute(key, value);
      for (const [dim, length] of g.dims) {
        // int64, as numpy's arange gives ArviZ its coords.
        const scale = h.create_dataset({ name: dim, data: BigInt64Array.from({ length }, (_, i) => BigInt(i)), shape: [length], dtype: "<q" });
        scale.make_scale(dim);
      }
      for (const v of g.variables) writeVariable(h, g.name, v, slabValues);
    }
  } finally {
    file.close();
  }
}

function writeVariable(h: InstanceType<H5["Group"]>, groupName: string, v: InferenceVariable, slabValues: number): void {
  const dtype = v.bool ? "<b" : v.int ? "<q" : "<d";
  const ds = v.slab !== undefined && !v.shape.includes(0) ? writeSlabs(h, v, v.slab, dtype, slabValues) : h.create_dataset({ name: v.name, data: encode(v, v.values), shape: [...v.shape], dtype });
  // xarray's encoding of booleans: int8 values with dtype = "bool".
  if (v.bool) ds.create_attribute("dtype", "bool");
  v.dims.forEach((d, k) => ds.attach_scale(k, `/${groupName}/${d}`));
}

// The values as stored: 0/1 bytes, 64-bit integers or doubles.
function encode(v: InferenceVariable, values: Float64Array): Float64Array | Int8Array | BigInt64Array {
  return v.bool ? Int8Array.from(values, (x) => (x !== 0 ? 1 : 0)) : v.int ? BigInt64Array.from(values, (x) => BigInt(x)) : values;
}

/**
 * A variable of draws [chain, draw, …] written a stretch of draws at a time (at most `slabValues`
 * values), so that neither this process nor the HDF5 library's WebAssembly memory (which never
 * shrinks) holds the variable whole: the dataset is made empty, chunked a chain's stretch at a
 * time, resized to its shape, and filled slab by slab.
 */
function writeSlabs(h: InstanceType<H5["Group"]>, v: InferenceVariable, slab: NonNullable<InferenceVariable["slab"]>, dtype: string, slabValues: number): InstanceType<H5["Dataset"]> {
  const [chains, draws, ...rest] = v.shape as [number, number, ...number[]];
  const size = rest.reduce((a, b) => a * b, 1);
  const step = Math.min(draws, Math.max(1, Math.floor(slabValues / size)));
  const empty = v.bool ? new Int8Array(0) : v.int ? new BigInt64Array(0) : new Float64Array(0);
  const ds = h.create_dataset({ name: v.name, data: empty, shape: [0, draws, ...rest], maxshape: [chains, draws, ...rest], chunks: [1, step, ...rest], dtype });
  ds.resize([chains, draws, ...rest]);
  const buf = new Float64Array(step * size);
  for (let c = 0; c < chains; c++) {
    for (let d = 0; d < draws; d += step) {
      const count = Math.min(step, draws - d);
      const part = buf.subarray(0, count * size);
      slab(c, d, part);
      ds.write_slice([[c, c + 1], [d, d + count], ...rest.map((n): [number, number] => [0, n])], encode(v, part));
    }
  }
  return ds;
}

/** One variable as read back: its shape, dims, values and HDF5 type ("<d", "<q", "<b", …). */
export interface ReadVariable {
  readonly shape: number[];
  readonly dims: string[];
  readonly values: number[];
  readonly dtype: string;
}

/** Reads a netCDF4 file's groups back (names, dims, values, types) and each group's attributes through h5wasm, for checks that need no netCDF library. */
export async function readNetcdf(path: string): Promise<Map<string, Map<string, ReadVariable>> & { attrs: Map<string, Record<string, string>> }> {
  const { File, Dataset, Group: H5Group } = await h5();
  const file = new File(path, "r");
  try {
    const out = Object.assign(new Map<string, Map<string, ReadVariable>>(), { attrs: new Map<string, Record<string, string>>() });
    for (const name of file.keys()) {
      const g = file.get(name);
      if (!(g instanceof H5Group)) continue;
      const vars = new Map<string, ReadVariable>();
      out.attrs.set(name, Object.fromEntries(Object.entries(g.attrs).map(([k, a]) => [k, String(a.value)])));
      for (const key of g.keys()) {
        const ds = g.get(key);
        if (!(ds instanceof Dataset)) continue;
        const shape = ds.shape ?? [];
        const dims = shape.map((_, k) => (ds.get_attached_scales(k)[0] ?? "").replace(/^.*\//, ""));
        const raw = ds.value;
        const values = typeof raw === "number" || typeof raw === "bigint" ? [Number(raw)] : Array.from(raw as ArrayLike<number>, Number);
        vars.set(key, { shape, dims, values, dtype: String(ds.dtype) });
      }
      out.set(name, vars);
    }
    return out;
  } finally {
    file.close();
  }
}

/** The attributes every group of an InferenceData file gets (ArviZ's created_at and inference_library…), with the model's name and, for draws that are not MCMC, the method that made them. */
export function inferenceDataAttributes(model: string | undefined, method?: string): GroupAttributes {
  return {
    created_at: new Date().toISOString(),
    inference_library: "ppl",
    inference_library_version: libraryVersion(),
    ...(model !== undefined ? { model } : {}),
    ...(method !== undefined ? { inference_method: method } : {}),
  };
}
