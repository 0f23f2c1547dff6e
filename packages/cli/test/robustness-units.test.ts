// In-process tests of the pieces behind the robustness fixes: the pool of open files, progress
// lines fitted to the terminal, the time bound on output paths, and the one-line option errors.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commanderErrorLine } from "../src/cli.ts";
import { CliError, ExitCode } from "../src/exit-codes.ts";
import { defaultPoolSize, FilePool } from "../src/file-pool.ts";
import { abandonedCalls, withDeadline } from "../src/output-dir.ts";
import { Progress, progressLines } from "../src/progress.ts";
import { tempDir } from "./helpers.ts";

describe("FilePool", () => {
  it("writes many files in turn through at most its bound of open descriptors, each complete", () => {
    const dir = tempDir();
    const pool = new FilePool(3);
    const paths = Array.from({ length: 10 }, (_, i) => join(dir, `f${i}.txt`));
    const sinks = paths.map((p) => pool.sink(p));
    expect(pool.openCount).toBe(3);
    for (let row = 0; row < 5; row++) sinks.forEach((s, i) => s.write(`${i}:${row}\n`));
    expect(pool.openCount).toBe(3);
    for (const s of sinks) s.close();
    expect(pool.openCount).toBe(0);
    paths.forEach((p, i) => expect(readFileSync(p, "utf8")).toBe([0, 1, 2, 3, 4].map((r) => `${i}:${r}\n`).join("")));
    expect(() => sinks[4]!.write("late")).toThrow(/already closed/);
  });

  it("keeps a quarter of the process's limit, at most 256", () => {
    expect(defaultPoolSize(1024)).toBe(256);
    expect(defaultPoolSize(100)).toBe(25);
    expect(defaultPoolSize(2)).toBe(1);
    expect(defaultPoolSize(1_000_000)).toBe(256);
  });
});

describe("progress on a narrow terminal", () => {
  it("fits every line to the width: the bar goes first, then the padding", () => {
    const wide = progressLines([50, 150], 100, 100, 10, 200);
    expect(wide[0]).toMatch(/\[#+\.+\]/);
    const mid = progressLines([50, 150], 100, 100, 10, 40);
    for (const l of mid) expect(l.length).toBeLessThan(40);
    expect(mid[0]).toMatch(/^chain 1\s+warmup\s+50\/200\s+25%$/);
    const narrow = progressLines([50, 150], 100, 100, 10, 20);
    for (const l of narrow) expect(l.length).toBeLessThan(20);
    expect(narrow[0]).toBe("chain 1 warmup 50/2");
  });

  it("redraws by moving up exactly the lines it wrote, erasing below", () => {
    const written: string[] = [];
    const p = new Progress({ isTTY: true, columns: 24, write: (s: string) => written.push(s) }, 10, 10, 3, true);
    p.update(0, 0);
    const first = written.join("");
    expect(first.split("\n").filter((l) => l !== "")).toHaveLength(4);
    for (const l of first.split("\n")) expect(l.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").length).toBeLessThan(24);
    p.finish();
    expect(written[written.length - 1]).toMatch(/^\x1b\[4A/);
  });
});

describe("the time bound on output paths", () => {
  it("turns a call that never answers into a usage error, and counts it as abandoned", async () => {
    const before = abandonedCalls();
    const hung = new Promise<never>(() => undefined);
    const e = await withDeadline(hung, 10, "creating 'out'").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(ExitCode.usage);
    expect((e as CliError).message).toBe("creating 'out' did not answer within 10 ms (a network file system that stopped responding?); choose another with --output");
    expect(abandonedCalls()).toBe(before + 1);
    await expect(withDeadline(Promise.resolve(7), 1000, "x")).resolves.toBe(7);
  });
});

describe("commander's errors", () => {
  it("come out as one line with our prefix", () => {
    expect(commanderErrorLine("error: unknown command 'smaple'\n(Did you mean sample?)\n")).toBe("ppl: unknown command 'smaple' (Did you mean sample?) (add --help for the options)\n");
  });
});
