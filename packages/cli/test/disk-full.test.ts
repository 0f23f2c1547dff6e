// A write the disk refuses while `ppl sample` writes (ENOSPC, EIO): exit 4, one line naming the file
// and the cause, every file ending at its last complete row. The full disk is the file pool's test
// hook (PPL_TEST_DISK_FULL_AFTER: each file fails with ENOSPC once it would grow past that size,
// after writing the part of the row that fits, as a full disk does).
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readStanCsv } from "@ppl/ppl";
import { ExitCode } from "../src/exit-codes.ts";
import { FilePool } from "../src/file-pool.ts";
import { WriteFailure, writeFailureError } from "../src/write-failure.ts";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

// Every line of a chain's file after its column line is a comment or a whole row; the rows' count.
function wholeRows(path: string): number {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  expect(lines.at(-1), `${path} ends with a newline`).toBe("");
  const header = lines.findIndex((l) => l.startsWith("lp__,"));
  if (header < 0) return 0;
  const columns = lines[header]!.split(",").length;
  const rows = lines.slice(header + 1, -1).filter((l) => !l.startsWith("#"));
  for (const row of rows) expect(row.split(",").length, `${path}: ${row}`).toBe(columns);
  expect(readStanCsv(text).draws[0]!.length).toBe(rows.length);
  return rows.length;
}

describe("a full disk while ppl sample writes", () => {
  it("mid-run: exit 4 naming the file and the cause, the files ending at their last complete row", async () => {
    const out = join(tempDir(), "run");
    const r = await runCli(
      ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "30", "--draws", "100000", "--seed", "2", "--output", out],
      { PPL_TEST_DISK_FULL_AFTER: "40000" },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^ppl: cannot write '.*chain-[12]\.csv': the disk is full \(ENOSPC\); the files written so far end at their last complete row; free some space .* --output$/m);
    expect(hasStackTrace(r.stderr)).toBe(false);
    const rows = [1, 2].map((c) => wholeRows(join(out, `chain-${c}.csv`)));
    expect(Math.max(...rows)).toBeGreaterThan(10);
    for (const c of [1, 2]) expect(readFileSync(join(out, `chain-${c}.csv`)).length).toBeLessThanOrEqual(40000);
  }, 60_000);

  it("at the header: exit 4 too, not a usage error", async () => {
    const out = join(tempDir(), "run");
    const r = await runCli(
      ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "30", "--draws", "50", "--output", out],
      { PPL_TEST_DISK_FULL_AFTER: "100" },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/ppl: cannot write '.*chain-1\.csv': the disk is full \(ENOSPC\)/);
    expect(readFileSync(join(out, "chain-1.csv"), "utf8")).toBe("");
  }, 60_000);
});

describe("FilePool on a disk that refuses a write", () => {
  const dir = () => mkdtempSync(join(tmpdir(), "ppl-pool-"));

  it("takes back the part of the row it wrote, names the file, and writes on after the last whole row", () => {
    for (const limit of [1, 256]) {
      // Rows of 10 bytes; the third would end at byte 30, past the 26 the disk holds.
      const path = join(dir(), `f-${limit}.csv`);
      const pool = new FilePool(limit, { PPL_TEST_DISK_FULL_AFTER: "26" });
      const sink = pool.sink(path);
      sink.write("row-00001\n");
      sink.write("row-00002\n");
      let thrown: unknown = null;
      try {
        sink.write("row-00003\n");
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(WriteFailure);
      expect((thrown as WriteFailure).path).toBe(path);
      expect((thrown as WriteFailure).code).toBe("ENOSPC");
      expect(readFileSync(path, "utf8")).toBe("row-00001\nrow-00002\n");
      // What fits still goes right after the last whole row (a footer), with no gap.
      sink.write("# end\n");
      sink.close();
      expect(readFileSync(path, "utf8")).toBe("row-00001\nrow-00002\n# end\n");
    }
  });

  it("reports ENOSPC, EDQUOT, EFBIG and EIO with exit 4 and the cause; other errors are not write failures", () => {
    const eio = Object.assign(new Error("EIO: i/o error, write"), { code: "EIO", path: "/data/out/chain-3.csv" });
    const e = writeFailureError(eio)!;
    expect(e.exitCode).toBe(ExitCode.writeFailed);
    expect(ExitCode.writeFailed).toBe(4);
    expect(e.message).toMatch(/^cannot write '\/data\/out\/chain-3\.csv': the disk reported an input\/output error \(EIO\); the files written so far end at their last complete row/);
    expect(writeFailureError(new WriteFailure("/x/summary.json", "EDQUOT", null))!.message).toMatch(/^cannot write '\/x\/summary\.json': the disk quota is used up \(EDQUOT\)/);
    expect(writeFailureError(Object.assign(new Error("too big"), { code: "EFBIG" }))!.message).toMatch(/^cannot write a file: the file is larger/);
    expect(writeFailureError(Object.assign(new Error("nope"), { code: "EACCES" }))).toBeNull();
    expect(writeFailureError(new Error("plain"))).toBeNull();
  });
});
