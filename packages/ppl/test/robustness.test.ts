// Bad input the library must turn into a typed error naming the fix (or a flagged result), never a
// TypeError from deep inside or a file that reads back wrong.
import { describe, expect, it } from "vitest";
import { thrownBy } from "@ppl/tensor/testing";
// Imported from the modules themselves, which stay where they are whatever the package index exports.
import { interval } from "../src/transforms/index.ts";
import { normal, truncatedNormal, uniform } from "../src/distributions/index.ts";
import { checkData, compileModel, data, DataError, model, ModelError } from "../src/model/index.ts";
import { readStanCsv, sampleConfig, stringSink, writeStanCsv } from "../src/io/index.ts";
import { summarize } from "../src/diagnostics/index.ts";

/** The error `f` throws (failing the test when it returns). */
const thrown = (f: () => unknown): Error => thrownBy(f, Error);

const eightSpec = { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) };

describe("names", () => {
  it.each(["lp__", "stepsize__", "theta__"])("a parameter or deterministic named %s is refused: names ending in __ are the sampler's", (name) => {
    const asParam = model({ name: "m", data: {}, build: (m) => void m.param(name, normal(0, 1)) });
    const e = thrown(() => compileModel(asParam, {}));
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).toBe(`model 'm': the parameter name '${name}' is reserved (names ending in __ are the sampler's columns, such as lp__ and stepsize__); rename it`);
    const asDet = model({ name: "m", data: {}, build: (m) => void m.deterministic(name, m.param("mu", normal(0, 1))) });
    expect(thrown(() => compileModel(asDet, {})).message).toMatch(/the deterministic name '.*__' is reserved/);
  });

  it("a model name with a line break is refused", () => {
    const e = thrown(() => model({ name: "a\nb", data: {}, build: (m) => void m.param("mu", normal(0, 1)) }));
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).toBe('model: the name "a\\nb" holds a line break or another control character; give it a one-line name');
  });

  it("a header value with a line break stays one comment line, and the file reads back", () => {
    const sink = stringSink();
    const w = writeStanCsv(sink, { config: sampleConfig({ model: "m", numSamples: 1, numWarmup: 0, seed: 1, dataFile: "/tmp/a\nb.json" }), parameters: ["mu"] });
    w.writeDraw([0, 1, 1, 1, 1, 0, 0, 0.5]);
    w.close();
    const text = sink.text();
    expect(text.split("\n").filter((l) => !l.startsWith("#") && l !== "")).toHaveLength(2);
    const csv = readStanCsv(text);
    expect(csv.columns.at(-1)).toBe("mu");
    expect(csv.config["data.file"]).toBe("/tmp/a\\nb.json");
  });
});

describe("data", () => {
  it("reading an undeclared field in build names it and the field meant", () => {
    const typo = model({
      name: "typo",
      data: eightSpec,
      build(m, d) {
        const mu = m.param("mu", normal(0, 5));
        m.observe((d as unknown as Record<string, never>)["Y"], normal(mu, d.sigma));
      },
    });
    const e = thrown(() => compileModel(typo, { J: 1, y: [1], sigma: [1] }));
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).toBe("model 'typo': build reads d.Y, but the data spec declares no field 'Y' (its fields: J, y, sigma); did you mean d.y?");
  });

  it("a huge size is reported against the data it sizes, and as a parameter's size", () => {
    const e = thrown(() => checkData(eightSpec, { J: 1e10, y: [1, 2], sigma: [1, 2] }));
    expect(e).toBeInstanceOf(DataError);
    expect(e.message).toBe("'y' has 2 entries, the model expects J=10000000000");
    const wide = model({ name: "wide", data: { K: data.int() }, build: (m, d) => void m.param("theta", normal(0, 1), { shape: [d.K] }) });
    const p = thrown(() => compileModel(wide, { K: 1e10 }));
    expect(p).toBeInstanceOf(ModelError);
    expect(p.message).toMatch(/^parameter 'theta': shape \[10000000000\] has 10000000000 entries, more than 2147483647; check the data values that size it$/);
    const unsafe = thrown(() => checkData({ K: data.int() }, { K: 1e20 }));
    expect(unsafe).toBeInstanceOf(DataError);
    expect(unsafe.message).toMatch(/'K' is 100000000000000000000, beyond the integers a double holds exactly/);
  });

  it.each(["constructor", "__proto__", "toString", "hasOwnProperty"])("the key %s is an unknown key like any other", (key) => {
    const json = JSON.parse(`{"J": 1, "y": [1], "sigma": [1], ${JSON.stringify(key)}: 1}`) as unknown;
    const e = thrown(() => checkData(eightSpec, json));
    expect(e).toBeInstanceOf(DataError);
    expect(e.message).toBe(`'${key}' is not a data field of this model (its fields: J, y, sigma); remove it from the data or declare it in the model's data spec`);
  });

  it("a declared field is missing even where a prototype has a property of its name", () => {
    const e = thrown(() => checkData({ constructor: data.real() }, {}));
    expect(e.message).toMatch(/^'constructor' is missing/);
  });
});

describe("bounds", () => {
  it.each([
    ["interval", () => interval(1, 1)],
    ["uniform", () => uniform(1, 1)],
    ["truncatedNormal", () => truncatedNormal(0, 1, { lower: 1, upper: 1 })],
  ])("%s with equal bounds says to widen it, not to swap them", (_name, f) => {
    const e = thrown(f);
    expect(e).toBeInstanceOf(ModelError);
    expect(e.message).not.toMatch(/swap/);
    expect(e.message).toMatch(/they are equal, and an interval needs room between its bounds: widen it/);
  });

  it("reversed bounds still say to swap them", () => {
    expect(thrown(() => interval(2, 1)).message).toBe("interval: the lower bound 2 must be below the upper bound 1; swap them");
  });
});

describe("Stan CSV and summaries", () => {
  it("a non-numeric field is named, with its column", () => {
    const e = thrown(() => readStanCsv("lp__,mu,tau\n1,2,3\n1,abc,3\n"));
    expect(e.message).toBe('Stan CSV line 3: field 2 (column \'mu\') is "abc", not a number');
    expect(thrown(() => readStanCsv("lp__,mu\n1,2,3\n")).message).toMatch(/expected 2 numeric fields, got 3/);
  });

  it("NaN and infinite draws give a warning naming the parameter", () => {
    const s = summarize({ mu: [[1, 2, 3, 4], [1, 2, 3, 4]], z: [[1, NaN, 3, 4], [NaN, 2, 3, 4]], w: [[Infinity, 1, 2, 3], [1, 2, 3, 4]] });
    const kinds = s.warnings.filter((w) => w.kind === "nonfinite");
    expect(kinds.map((w) => [w.parameter, w.value])).toEqual([["z", 2], ["w", 1]]);
    expect(kinds[0]!.message).toMatch(/^2 of 8 draws of z are NaN, so its statistics are NA/);
    expect(kinds[1]!.message).toMatch(/^1 of 8 draws of w are infinite/);
  });
});
