// The packages' entry points are deliberate: ppl's user API holds none of the building blocks that
// "@ppl/ppl/internals" exports, and every function and class an entry exports has a doc comment.
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as publicApi from "../src/index.ts";
import * as internals from "../src/internals.ts";
import * as runner from "../src/runner.ts";
import * as tensorApi from "../../tensor/src/index.ts";
import * as tensorInternals from "../../tensor/src/internals.ts";
import * as tensorIr from "../../tensor/src/ir-entry.ts";
import * as tensorPasses from "../../tensor/src/passes-entry.ts";
import * as tensorBackend from "../../tensor/src/backend-entry.ts";

const entry = (pkg: string, file = "index.ts") => fileURLToPath(new URL(`../../${pkg}/src/${file}`, import.meta.url));

describe("public API", () => {
  it("@ppl/ppl exports no name of @ppl/ppl/internals", () => {
    const leaked = Object.keys(internals).filter((name) => name in publicApi);
    expect(leaked).toEqual([]);
    for (const name of ["leapfrogBegin", "driveBatch", "WelfordDiag", "regularize", "NutsTransition", "philox4x32"]) {
      expect(name in publicApi, name).toBe(false);
      expect(name in internals, name).toBe(true);
    }
  });

  it("@ppl/ppl exports no name of @ppl/ppl/runner: the runner plumbing is on its subpath", () => {
    expect(Object.keys(runner).filter((name) => name in publicApi)).toEqual([]);
    for (const name of ["splitRunner", "chainGroupSizes", "cpuGradientLowerBound", "dataElementCount", "registerTransitionRunner", "prepareTransitionRunner", "ChainBatch"]) {
      expect(name in publicApi, name).toBe(false);
      expect(name in runner, name).toBe(true);
    }
    for (const name of ["sample", "sampleAsync", "SamplerOptionError", "Metric"]) expect(name in publicApi, name).toBe(true);
  });

  it("@ppl/tensor exports no name of @ppl/tensor/internals, and keeps the tracing API, autodiff and evaluation", () => {
    expect(Object.keys(tensorInternals).filter((name) => name in tensorApi)).toEqual([]);
    for (const name of ["toposort", "optimize", "castFloats", "registerBackend", "compiledBackend", "VJP_RULES", "isUnary", "Arena", "broadcastIndex"]) {
      expect(name in tensorApi, name).toBe(false);
      expect(name in tensorInternals, name).toBe(true);
    }
    for (const name of ["Node", "param", "constant", "add", "matmul", "scan", "odeRK45", "grad", "vmap", "interpret", "getBackend", "ShapeError"]) {
      expect(name in tensorApi, name).toBe(true);
    }
  });

  it("@ppl/tensor/ir, /passes and /backend are named parts of @ppl/tensor/internals, apart from one another and from the user API", () => {
    const parts = { ir: tensorIr, passes: tensorPasses, backend: tensorBackend };
    const seen = new Map<string, string>();
    for (const [part, mod] of Object.entries(parts)) {
      for (const name of Object.keys(mod)) {
        expect(name in tensorInternals, `${part}: ${name}`).toBe(true);
        expect(name in tensorApi, `${part}: ${name}`).toBe(false);
        expect(seen.get(name), `${name} in ${part}`).toBeUndefined();
        seen.set(name, part);
      }
    }
    for (const name of ["OP_TRAITS", "isUnary", "toposort", "sizeOf", "serializeGraph"]) expect(seen.get(name), name).toBe("ir");
    for (const name of ["optimize", "castFloats", "lowerLpdfSums", "permutableRows"]) expect(seen.get(name), name).toBe("passes");
    for (const name of ["registerBackend", "boundValues", "compiledBackend", "Arena"]) expect(seen.get(name), name).toBe("backend");
  });

  it("keeps what a user needs: models, distributions, constraints, sampling, diagnostics, IO, LOO", () => {
    for (const name of ["model", "data", "compileModel", "normal", "lower", "sample", "summarize", "essBulk", "rhat", "readStanCsv", "writeStanCsv", "loo", "modelDensity"]) {
      expect(name in publicApi, name).toBe(true);
    }
  });

  it("every exported function and class of each package's entry has a doc comment", () => {
    const entries = [entry("tensor"), entry("tensor", "internals.ts"), entry("tensor", "ir-entry.ts"), entry("tensor", "passes-entry.ts"), entry("tensor", "backend-entry.ts"), entry("vulkan"), entry("ppl"), entry("ppl", "internals.ts"), entry("ppl", "inference.ts"), entry("ppl", "runner.ts"), entry("ppl-vulkan")];
    const program = ts.createProgram(entries, {
      allowImportingTsExtensions: true, noEmit: true, strict: true, skipLibCheck: true,
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    });
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    for (const file of entries) {
      const mod = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      for (const s of checker.getExportsOfModule(mod)) {
        const target = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
        if (!(target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class))) continue;
        if (ts.displayPartsToString(target.getDocumentationComment(checker)).trim() === "") undocumented.push(`${file}: ${s.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it("every export of @ppl/ppl (the user's entry: types, interfaces and constants too) and every public member of Fit has a doc comment", () => {
    const file = entry("ppl");
    const program = ts.createProgram([file], {
      allowImportingTsExtensions: true, noEmit: true, strict: true, skipLibCheck: true,
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    });
    const checker = program.getTypeChecker();
    const doc = (s: ts.Symbol): string => ts.displayPartsToString(s.getDocumentationComment(checker)).trim();
    const exports = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file)!)!);
    const target = (s: ts.Symbol): ts.Symbol => (s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
    expect(exports.length).toBeGreaterThan(200);
    expect(exports.filter((s) => doc(target(s)) === "").map((s) => s.name)).toEqual([]);
    const fit = target(exports.find((s) => s.name === "Fit")!);
    const members = [...(fit.members?.values() ?? [])].filter((m) => {
      const mods = ts.getCombinedModifierFlags(m.declarations![0]! as ts.Declaration);
      return !(mods & ts.ModifierFlags.Private) && m.name !== "__constructor";
    });
    expect(members.map((m) => m.name)).toContain("summary");
    expect(members.filter((m) => doc(m) === "").map((m) => m.name)).toEqual([]);
  });
});
