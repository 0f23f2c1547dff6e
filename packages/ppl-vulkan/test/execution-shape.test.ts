import { describe, expect, it } from "vitest";
import { chooseControllerMode, controllerTakesEpilogue } from "../src/controller-program.ts";
import {
  add, cholesky, data, eigenvaluesSym, gather, grad, logDeterminant, matmul, mul, param, scan, softplus, solve, square, sub, sum, triangularSolve, type Node,
} from "@ppl/tensor";
import { optimize } from "@ppl/tensor/internals";
import { rendersRowPass } from "../src/logp-function.ts";
import { chooseShape, chooseStepSizeSearch, largestFactorisation, longestScan, rowPassDecides } from "../src/execution-shape.ts";

describe("choosing the GPU sampler's execution shape", () => {
  it("thread per chain for tiny data, a workgroup for moderate data, the whole device for large or many-chain work", () => {
    expect(chooseShape(26, 4)).toBe("thread"); // eight schools
    expect(chooseShape(104, 4)).toBe("thread"); // hmm_example
    expect(chooseShape(207, 4)).toBe("workgroup"); // arK
    expect(chooseShape(1_309, 4)).toBe("workgroup"); // kidiq
    expect(chooseShape(5_000, 4)).toBe("workgroup");
    expect(chooseShape(10_000_000, 4)).toBe("device"); // logistic N = 100k, D = 100
    expect(chooseShape(10_000, 1024)).toBe("device"); // logistic N = 1k, D = 10, 1024 chains
  });

  it("a workgroup per chain for many chains of a regression whose gradient is one row pass", () => {
    expect(chooseShape(11_011, 1024, "discrete", 0, 0, true)).toBe("workgroup"); // the 1024-chain logistic anchor
    expect(chooseShape(11_011, 132, "discrete", 0, 0, true)).toBe("workgroup");
    expect(chooseShape(11_011, 4096, "discrete", 0, 0, true)).toBe("device");
    expect(chooseShape(30_000, 64, "discrete", 0, 0, true)).toBe("device");
    expect(chooseShape(11_011, 1024, "cpu", 0, 0, true)).toBe("device");
    // Where the answer depends on the row pass: the runner builds the gradient graph only there.
    for (const [elements, chains] of [[11_011, 1024], [11_011, 132], [11_011, 4096], [30_000, 64], [5_000, 4], [26, 4096]] as const) {
      expect(rowPassDecides(elements, chains), `${elements} × ${chains}`).toBe(chooseShape(elements, chains, "discrete", 0, 0, true) !== chooseShape(elements, chains, "discrete", 0, 0, false));
    }
    expect(rowPassDecides(11_011, 1024, "cpu")).toBe(false);
  });

  it("tells a regression's gradient, which the workgroup renders as one row pass, from a hierarchical one", () => {
    const X = data("X", [1000, 10], "f32"), y = data("y", [1000], "f32"), beta = param("beta", [10], "f32");
    const eta = matmul(X, beta);
    const lp = add(sum(sub(mul(y, eta), softplus(eta))), sum(mul(-0.5, square(beta))));
    const [lpO, g] = optimize([lp, ...grad(lp, [beta])]) as [Node, Node];
    expect(rendersRowPass(lpO, g)).toBe(true);
    // Group effects gathered by an index: no product with a matrix of rows, no row pass.
    const a = param("a", [20], "f32"), idx = data("g", [1000], "i32");
    const lpH = add(sum(mul(-0.5, square(sub(y, gather(a, idx))))), sum(mul(-0.5, square(a))));
    const [lpHO, gH] = optimize([lpH, ...grad(lpH, [a])]) as [Node, Node];
    expect(rendersRowPass(lpHO, gH)).toBe(false);
  });

  it("a workgroup per chain for small data when the density factorises a matrix of order 8 or more", () => {
    expect(chooseShape(46, 4, "discrete", 11)).toBe("workgroup"); // gp_pois_regr
    expect(chooseShape(46, 4, "discrete", 4)).toBe("thread");
    expect(chooseShape(10_000_000, 4, "discrete", 11)).toBe("device");
  });

  it("a workgroup per chain for small data when the density runs a scan of 64 steps or more", () => {
    expect(chooseShape(104, 4, "discrete", 0, 99)).toBe("workgroup"); // hmm_example
    expect(chooseShape(104, 4, "discrete", 0, 20)).toBe("thread");
    expect(chooseShape(10_000_000, 4, "discrete", 0, 99)).toBe("device");
  });

  it("finds the longest scan in a density, nested scans' steps multiplied", () => {
    const c0 = param("c0", [2]);
    expect(longestScan(sum(c0))).toBe(0);
    const outer = scan(([c]) => ({ carry: [add(c!, sum(scan(([d]) => ({ carry: [mul(d!, 0.5)] }), [c!], [], [], { length: 7 }).carry[0]!))] }), [c0], [], [], { length: 12 });
    expect(longestScan(sum(outer.carry[0]!))).toBe(84);
    expect(longestScan(sum(scan(([c]) => ({ carry: [mul(c!, 2)] }), [c0], [], [], { length: 99 }).carry[0]!))).toBe(99);
  });

  it("finds the order of the largest factorisation or solve in a density", () => {
    const a = param("a", [3, 3]);
    expect(largestFactorisation(sum(a))).toBe(0);
    expect(largestFactorisation(sum(cholesky(a)))).toBe(3);
    // The matrix's order, not the number of right-hand sides; and the general linear algebra too.
    const b = param("b", [9, 9]);
    expect(largestFactorisation(sum(triangularSolve(b, param("v", [9]))))).toBe(9);
    expect(largestFactorisation(sum(solve(b, param("v", [9]))))).toBe(9);
    expect(largestFactorisation(logDeterminant(b))).toBe(9);
    expect(largestFactorisation(sum(eigenvaluesSym(a)))).toBe(3);
  });

  it("always the whole-device shape on a CPU implementation of Vulkan, whose shader loops stop at 65,535 iterations", () => {
    expect(chooseShape(26, 4, "cpu")).toBe("device");
    expect(chooseShape(26, 4, "discrete")).toBe("thread");
  });

  it("on a CPU implementation of Vulkan the controller runs a thread per chain only while its private tables stay small", () => {
    expect(chooseControllerMode(11, 10, "cpu")).toEqual({ kind: "thread" });
    expect(chooseControllerMode(13, 15, "cpu")).toEqual({ kind: "workgroup", workgroup: 32 });
    expect(chooseControllerMode(101, 10, "cpu")).toEqual({ kind: "workgroup", workgroup: 128 });
    expect(chooseControllerMode(5000, 10, "cpu")).toEqual({ kind: "workgroup", workgroup: 256 });
  });

  it("on a GPU the controller runs a workgroup per chain at every dimension", () => {
    expect(chooseControllerMode(10, 10, "discrete")).toEqual({ kind: "workgroup", workgroup: 32 });
    expect(chooseControllerMode(101, 10, "integrated")).toEqual({ kind: "workgroup", workgroup: 128 });
    expect(chooseControllerMode(5000, 10, "discrete")).toEqual({ kind: "workgroup", workgroup: 256 });
  });

  it("the controller computes the gradient's assembly itself where a thread computes one element, or a thread is a chain", () => {
    expect(controllerTakesEpilogue(101, chooseControllerMode(101, 10, "discrete"))).toBe(true); // N=100k
    expect(controllerTakesEpilogue(11, chooseControllerMode(11, 10, "discrete"))).toBe(true); // 1024 chains
    expect(controllerTakesEpilogue(2005, chooseControllerMode(2005, 10, "discrete"))).toBe(false); // hier: 8 a thread
    expect(controllerTakesEpilogue(11, chooseControllerMode(11, 10, "cpu"))).toBe(true);
    expect(controllerTakesEpilogue(54, { kind: "workgroup", workgroup: 32 })).toBe(false);
  });

  it("a workgroup mode that says whether it takes the assembly overrides the rule either way", () => {
    expect(controllerTakesEpilogue(2005, { kind: "workgroup", workgroup: 1024, epilogue: true })).toBe(true);
    expect(controllerTakesEpilogue(11, { kind: "workgroup", workgroup: 32, epilogue: false })).toBe(false);
  });
});

describe("where the fused shapes' step-size searches run", () => {
  it("on the device for many chains of moderate data, on the host for a few chains or on a CPU driver", () => {
    expect(chooseStepSizeSearch(11_011, 1024)).toBe("device"); // the 1024-chain logistic anchor
    expect(chooseStepSizeSearch(11_011, 132)).toBe("device");
    expect(chooseStepSizeSearch(26, 4)).toBe("host"); // eight schools
    expect(chooseStepSizeSearch(20_000, 4)).toBe("host"); // the workgroup shape's largest data, 4 chains
    expect(chooseStepSizeSearch(11_011, 1024, "cpu")).toBe("host"); // lavapipe
  });
});
