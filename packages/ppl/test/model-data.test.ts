import { describe, expect, test } from "vitest";
import { thrownBy } from "@ppl/tensor/testing";
import { data, DataError, ModelError, unusedDataKeys, type DataSpec } from "../src/index.ts";
import { checkData } from "../src/internals.ts";

const eight: DataSpec = { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) };
const good = () => ({ J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] });
const blr: DataSpec = { N: data.int(), D: data.int(), X: data.matrix("N", "D"), y: data.vector("N") };
const blrData = (n = 4, d = 3) => ({ N: n, D: d, X: Array.from({ length: n }, (_, i) => Array.from({ length: d }, (_, j) => i + j / 10)), y: Array.from({ length: n }, (_, i) => i) });

/** The DataError thrown by checkData, for assertions on its key and message. */
const dataError = (spec: DataSpec, json: unknown, opts?: { allowExtraKeys?: boolean }): DataError => thrownBy(() => checkData(spec, json, opts), DataError);

describe("checkData accepts Stan JSON data", () => {
  test("vectors, matrices as arrays of rows, int scalars", () => {
    const out = checkData(eight, good());
    expect(out.J!.shape).toEqual([]);
    expect(out.J!.data[0]).toBe(8);
    expect(out.y!.shape).toEqual([8]);
    const m = checkData(blr, blrData());
    expect(m.X!.shape).toEqual([4, 3]);
    expect(m.X!.data[1 * 3 + 2]).toBeCloseTo(1.2, 14); // row-major: row 2, column 3
  });
  test("arrays of any rank with integer option and bounds; numeric sizes", () => {
    const spec: DataSpec = { a: data.array(2, 3, 2, { int: true, lower: 0 }), v: data.intVector(3) };
    const out = checkData(spec, { a: [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]], v: [1, 2, 3] });
    expect(out.a!.shape).toEqual([2, 3, 2]);
    expect(Array.from(out.a!.data)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(dataError(spec, { a: [[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12.5]]], v: [1, 2, 3] }).message).toBe("'a[2,3,2]' is 12.5, but 'a' holds integers; give a whole number");
  });
  test("an array field as one typed array in row-major order, the same values as nested arrays", () => {
    const nested = checkData(blr, blrData(5, 3));
    const X = Float32Array.from(blrData(5, 3).X.flat());
    const flat = checkData(blr, { ...blrData(5, 3), X, y: Float64Array.from(blrData(5, 3).y) });
    expect(flat.X!.shape).toEqual([5, 3]);
    expect(Array.from(flat.X!.data)).toEqual(Array.from(X));
    expect(Array.from(flat.y!.data)).toEqual(Array.from(nested.y!.data));
    const ints = checkData({ n: data.intVector(3, { lower: 0 }) }, { n: Int32Array.of(0, 4, 9) });
    expect(Array.from(ints.n!.data)).toEqual([0, 4, 9]);
  });
  test("a Float32Array field keeps a 32-bit copy, its f64 data the same values, the caller's array free to change", () => {
    const X = Float32Array.from(blrData(5, 3).X.flat());
    const checked = checkData(blr, { ...blrData(5, 3), X });
    const value = checked.X!;
    expect(value.f32).toBeInstanceOf(Float32Array);
    expect(value.f32).not.toBe(X);
    expect(Array.from(value.f32!)).toEqual(Array.from(X));
    X[0] = 1234;
    expect(value.f32![0]).not.toBe(1234);
    expect(Array.from(value.data)).toEqual(Array.from(value.f32!));
    // The f64 copy is made once.
    expect(value.data).toBe(value.data);
    // Other kinds of arrays and nested arrays have no 32-bit copy.
    expect(checkData(blr, { ...blrData(5, 3), X: Float64Array.from(X) }).X!.f32).toBeUndefined();
    expect(checkData(blr, blrData(5, 3)).X!.f32).toBeUndefined();
    // An integer field given as a Float32Array is checked for whole numbers as before.
    expect(dataError({ n: data.intVector(2) }, { n: Float32Array.of(1, 2.5) }).message).toBe("'n[2]' is 2.5, but 'n' holds integers; give a whole number");
  });
  test("a Float32Array's entries and bounds are checked at the entry's position", () => {
    // NaN and ±∞ are data in an unbounded real field (as Stan reads them), every entry checked past them.
    const X = new Float32Array(12);
    X[1 * 3 + 2] = Infinity;
    X[2 * 3] = NaN;
    expect(Array.from(checkData(blr, { ...blrData(4, 3), X }).X!.data.slice(5, 7))).toEqual([Infinity, NaN]);
    const sigma = Float32Array.from(good().sigma);
    sigma[1] = Infinity;
    sigma[4] = -1;
    expect(dataError(eight, { ...good(), sigma }).message).toBe("'sigma[5]' is -1, below the lower bound 0 of 'sigma'");
  });
  test("a typed array's length, entries and bounds are checked, each error at the entry's position", () => {
    expect(dataError(blr, { ...blrData(4, 3), X: new Float64Array(11) }).message).toBe("'X' is a typed array of 11 values; the model expects N=4 × D=3 = 12, in row-major order");
    expect(dataError(eight, { ...good(), y: new Float64Array(7) }).message).toBe("'y' is a typed array of 7 values; the model expects J=8");
    const X = new Float64Array(12);
    X[1 * 3 + 2] = NaN; // row 2, column 3
    expect(checkData(blr, { ...blrData(4, 3), X }).X!.data[5]).toBeNaN();
    expect(dataError({ n: data.intVector(2) }, { n: Float64Array.of(1, NaN) }).message).toBe("'n[2]' is NaN, but 'n' holds integers; give a whole number");
    const sigma = Float64Array.from(good().sigma);
    sigma[4] = -1;
    expect(dataError(eight, { ...good(), sigma }).message).toBe("'sigma[5]' is -1, below the lower bound 0 of 'sigma'");
    expect(dataError({ n: data.intVector(2) }, { n: Float64Array.of(1, 2.5) }).message).toBe("'n[2]' is 2.5, but 'n' holds integers; give a whole number");
    // A scalar stays a number.
    expect(dataError(eight, { ...good(), J: Int32Array.of(8) }).key).toBe("J");
  });
  test("extra keys may be allowed explicitly", () => {
    expect(() => checkData(eight, { ...good(), note: 1 }, { allowExtraKeys: true })).not.toThrow();
  });
  test("unusedDataKeys names the undeclared keys in the data's order", () => {
    expect(unusedDataKeys(eight, { note: 1, ...good(), tau: [1] })).toEqual(["note", "tau"]);
    expect(unusedDataKeys(eight, good())).toEqual([]);
  });
  test.each(["constructor", "__proto__", "toString"])("a key %s stays refused where extra keys are allowed", (key) => {
    const json = JSON.parse(`{"J": 8, "y": ${JSON.stringify(good().y)}, "sigma": ${JSON.stringify(good().sigma)}, ${JSON.stringify(key)}: 1}`) as unknown;
    const e = dataError(eight, json, { allowExtraKeys: true });
    expect(e.key).toBe(key);
    expect(e.message).toBe(`'${key}' is not a data field of this model (its fields: J, y, sigma); remove it from the data or declare it in the model's data spec`);
  });
});

describe("DataError for each kind of bad data, naming the key, what was expected and what came", () => {
  const cases: [string, DataSpec, unknown, string, string][] = [
    ["missing key", eight, { J: 8, y: good().y }, "sigma", "'sigma' is missing; the model expects a vector of J reals ≥ 0. Add it to the data file"],
    ["missing key with a likely misspelling", eight, { J: 8, y: good().y, sigmas: good().sigma }, "sigma", "'sigma' is missing; the model expects a vector of J reals ≥ 0 (the data has undeclared key 'sigmas' — a misspelling?). Add it to the data file"],
    ["wrong length", eight, { ...good(), y: good().y.slice(0, 7) }, "y", "'y' has 7 entries, the model expects J=8"],
    ["NaN in a bounded field", eight, { ...good(), sigma: [1, 1, "NaN", 1, 1, 1, 1, 1] }, "sigma", "'sigma[3]' is NaN, but the entries of 'sigma' must be ≥ 0 and NaN is on no side of a bound; remove or impute the entry"],
    ["-Inf below a lower bound", eight, { ...good(), sigma: [1, "-Inf", 1, 1, 1, 1, 1, 1] }, "sigma", "'sigma[2]' is -Infinity, below the lower bound 0 of 'sigma'"],
    ["infinity in an integer field", eight, { ...good(), J: "Inf" }, "J", "'J' is Infinity, but 'J' holds integers; give a whole number"],
    ["NaN in an integer vector", { n: data.intVector(2) }, { n: [1, NaN] }, "n", "'n[2]' is NaN, but 'n' holds integers; give a whole number"],
    ["a spelling Stan does not read", eight, { ...good(), y: [1, "NA", 3, 4, 5, 6, 7, 8] }, "y", "'y[2]' should be a number at this position (a vector of J reals), got the string \"NA\""],
    ["above a bound given by another field", { G: data.int(), g: data.intVector(2, { lower: 1, upper: "G" }) }, { G: 3, g: [1, 4] }, "g", "'g[2]' is 4, above the upper bound G = 3 of 'g'"],
    ["integer field with a fraction", eight, { ...good(), J: 8.5 }, "J", "'J' is 8.5, but 'J' holds integers; give a whole number"],
    ["below a lower bound", eight, { ...good(), sigma: [-1, 1, 1, 1, 1, 1, 1, 1] }, "sigma", "'sigma[1]' is -1, below the lower bound 0 of 'sigma'"],
    ["above an upper bound", { p: data.real({ upper: 1 }) }, { p: 2 }, "p", "'p' is 2, above the upper bound 1 of 'p'"],
    ["int bound", eight, { ...good(), J: 0, y: [], sigma: [] }, "J", "'J' is 0, below the lower bound 1 of 'J'"],
    ["undeclared key", eight, { ...good(), tau: 3 }, "tau", "'tau' is not a data field of this model (its fields: J, y, sigma); remove it from the data or declare it in the model's data spec"],
    ["string instead of a vector", eight, { ...good(), y: "28 8 -3" }, "y", "'y' should be an array of J=8 entries (a vector of J reals), got the string \"28 8 -3\""],
    ["string entry", eight, { ...good(), y: [1, "x", 3, 4, 5, 6, 7, 8] }, "y", "'y[2]' should be a number at this position (a vector of J reals), got the string \"x\""],
    ["scalar given as an array", eight, { ...good(), J: [8] }, "J", "'J' should be a number (an integer ≥ 1), got an array of 1"],
    ["matrix with too few rows", blr, { ...blrData(), X: blrData().X.slice(0, 3) }, "X", "'X' has 3 rows, the model expects N=4"],
    ["matrix row of the wrong length", blr, { ...blrData(), X: blrData().X.map((r, i) => (i === 2 ? r.slice(0, 2) : r)) }, "X", "'X' has 2 entries in row 3, the model expects D=3"],
    ["matrix given flat", blr, { ...blrData(), X: blrData().X.flat() }, "X", "'X' is a flat list of 12 values; the model expects nested arrays of N=4 × D=3 (Stan's JSON gives a matrix as an array of rows)"],
    ["negative size", { n: data.int(), v: data.vector("n") }, { n: -1, v: [] }, "n", "'n' is -1, but it sizes 'v' and a size must be ≥ 0"],
    ["not an object", eight, [1, 2], "", "the data must be a JSON object of named fields, got an array of 2"],
  ];
  for (const [name, spec, json, key, message] of cases) {
    test(name, () => {
      const e = dataError(spec, json);
      expect(e.name).toBe("DataError");
      expect(e.key).toBe(key);
      expect(e.message).toBe(message);
      expect(String(e)).toBe(`DataError: ${message}`);
    });
  }
  test("NaN and ±∞ in Stan's JSON spellings (and CmdStan's) are data of an unbounded real field", () => {
    const spellings = ["NaN", "nan", "Inf", "inf", "Infinity", "+inf", "-Inf", "-inf", "-Infinity", NaN, -Infinity];
    const out = checkData({ v: data.vector(spellings.length) }, { v: spellings });
    expect(Array.from(out.v!.data)).toEqual([NaN, NaN, Infinity, Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity, NaN, -Infinity]);
    // Within bounds, ±∞ is data too (Stan's real<lower=0> takes inf).
    expect(checkData({ s: data.real({ lower: 0 }) }, { s: "Inf" }).s!.data[0]).toBe(Infinity);
  });
  test("a bound may name an int or real scalar field, declared before or after it (Stan's int<upper=G>)", () => {
    const spec: DataSpec = { g: data.intVector("N", { lower: 1, upper: "G" }), N: data.int(), G: data.int({ lower: "one" }), one: data.int() };
    expect(Array.from(checkData(spec, { N: 2, G: 3, one: 1, g: [1, 3] }).g!.data)).toEqual([1, 3]);
    expect(dataError(spec, { N: 2, G: 0, one: 1, g: [1, 3] }).message).toBe("'G' is 0, below the lower bound one = 1 of 'G'");
    expect(() => checkData({ a: data.real({ upper: "b" }), b: data.real({ upper: "a" }) }, { a: 1, b: 2 })).toThrow(/bound each other in a cycle/);
    expect(() => checkData({ v: data.vector(2), w: data.vector(2, { upper: "v" }) }, { v: [1, 2], w: [1, 2] })).toThrow(ModelError);
  });
  test("the declarations check their arguments", () => {
    const bad: [() => unknown, RegExp][] = [
      [() => data.intVector("N", { lower: 1, upper: ["G"] as unknown as string }), /data\.intVector: 'upper' must be a number or the name of a scalar data field \(such as "G"\), got an array of 1/],
      [() => data.vector(2.5), /data\.vector: a size must be a non-negative integer or the name of an int data field, got number 2\.5/],
      [() => data.int(5 as unknown as object), /data\.int: the options must be an object such as \{ lower: 0 \}, got number 5/],
      [() => data.real({ lowr: 0 } as object), /data\.real: unknown option 'lowr'; the options are lower, upper/],
      [() => data.array(2, { int: "yes" as unknown as boolean }), /data\.array: 'int' must be true or false, got the string "yes"/],
      [() => data.matrix(2, 2, { lower: 3, upper: 1 }), /data\.matrix: lower \(3\) is above upper \(1\)/],
    ];
    for (const [f, message] of bad) expect(thrownBy(f, ModelError).message).toMatch(message);
  });
  test("a size naming a field that is not an int is a ModelError", () => {
    expect(() => checkData({ r: data.real(), v: data.vector("r") }, { r: 2, v: [1, 2] })).toThrow(ModelError);
  });
});
