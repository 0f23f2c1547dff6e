// The columnar spill that a run's summary reads: every column read back equals the rows pushed,
// bit for bit, whatever the block size, the chains' lengths and the cut, and so does any stretch of a chain.
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ColumnSpill, defaultBlockRows } from "../src/column-spill.ts";

describe("ColumnSpill", () => {
  it("reads back each column of each chain as pushed, for any block size and cut, sealed or not", () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-spill-"));
    let n = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 4, maxLength: 4 }),
        fc.double(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.option(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 4, maxLength: 4 })),
        (chains, width, blockRows, lengths, x, u, v, afterSeal) => {
          const spill = new ColumnSpill(join(dir, `s${n++}`), chains, width, blockRows);
          const value = (c: number, i: number, k: number): number => (k === 0 && i === 1 ? x : c * 1e6 + i * 10 + k + 0.25);
          // Chains take turns, as a run's do, with uneven lengths (a run stopped mid-iteration).
          const rows = lengths.slice(0, chains);
          const pushRows = (from: readonly number[], to: readonly number[]): void => {
            for (let i = Math.min(...from); i < Math.max(...to); i++) {
              for (let c = 0; c < chains; c++) if (i >= from[c]! && i < to[c]!) spill.push(c, Array.from({ length: width }, (_, k) => value(c, i, k)));
            }
          };
          pushRows(rows.map(() => 0), rows);
          // Sealed (the buffers written as short blocks and given back), and some rows pushed after.
          if (afterSeal !== null) {
            spill.seal();
            const more = rows.map((r, c) => r + afterSeal[c]!);
            pushRows(rows, more);
            rows.splice(0, chains, ...more);
          }
          for (let c = 0; c < chains; c++) expect(spill.rows(c)).toBe(rows[c]);
          const cut = Math.min(...rows);
          for (let k = 0; k < width; k++) {
            const cols = spill.column(k, cut);
            expect(cols.length).toBe(chains);
            cols.forEach((col, c) => expect(Array.from(col)).toEqual(Array.from({ length: cut }, (_, i) => value(c, i, k))));
            // A stretch of each chain, across written blocks and the one being filled.
            for (let c = 0; c < chains; c++) {
              const start = Math.floor(u * rows[c]!);
              const out = new Float64Array(Math.floor(v * (rows[c]! - start)));
              spill.read(c, k, start, out);
              expect(Array.from(out)).toEqual(Array.from(out, (_, i) => value(c, start + i, k)));
            }
          }
          spill.remove();
          expect(existsSync(spill.path)).toBe(false);
          spill.remove();
        },
      ),
      { seed: 48, numRuns: 200 },
    );
  });

  it("bounds its buffers: about 4 million values over all chains, 16 to 65536 rows a block", () => {
    expect(defaultBlockRows(4, 17)).toBe(61680);
    expect(defaultBlockRows(1, 1)).toBe(65536);
    expect(defaultBlockRows(10_000, 1000)).toBe(16);
  });
});
