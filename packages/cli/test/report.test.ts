// `ppl report`: a self-contained HTML file, opened in headless Chromium (Debian's package) through
// playwright-core: it renders without console errors or network requests, has one trace plot per
// parameter, and a screenshot is taken. A synthetic large run checks that thinning keeps it small.
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type BrowserContext } from "playwright-core";
import { fileSink, sampleConfig, writeStanCsv } from "@ppl/ppl";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const PARAMS = ["mu", "tau", ...Array.from({ length: 8 }, (_, i) => `theta_trans[${i + 1}]`), ...Array.from({ length: 8 }, (_, i) => `theta[${i + 1}]`)];

let dir: string;
let html: string;
let browser: BrowserContext | undefined;

beforeAll(async () => {
  dir = tempDir("ppl-report-");
  const out = join(dir, "run");
  const s = await runCli([
    "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
    "--chains", "4", "--warmup", "150", "--draws", "150", "--seed", "2", "--output", out, "--quiet",
  ]);
  expect(s.code, s.stderr).toBe(0);
  html = join(dir, "report.html");
  const r = await runCli(["report", out, "-o", html]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^wrote .*report.html \(\d+ KiB\)/);
});

afterAll(async () => {
  await browser?.close();
});

describe("ppl report", () => {
  it("is one self-contained file: no scripts, stylesheets, fonts or URLs", () => {
    const text = readFileSync(html, "utf8");
    expect(text.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(text).not.toMatch(/<script|<link|<img|@import|@font-face|url\(|https?:\/\//i);
    expect(text).toContain("eight_schools_noncentered");
  });

  it("renders in headless Chromium with no console errors and no network requests; one trace per parameter; screenshot", async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium package (scripts/setup.sh does)`).toBe(true);
    const userDataDir = mkdtempSync(join(tmpdir(), "ppl-chromium-"));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1150, height: 900 },
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ],
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (req) => requests.push(req.url()));
    const url = `file://${html}`;
    await page.goto(url, { waitUntil: "load" });

    expect(errors).toEqual([]);
    expect(requests).toEqual([url]);
    const traces = await page.locator("svg.trace").evaluateAll((els) => els.map((e) => e.getAttribute("data-param")));
    expect(traces).toEqual(PARAMS);
    expect(await page.locator("svg.rank").count()).toBe(PARAMS.length);
    expect(await page.locator("svg.autocorr").count()).toBe(PARAMS.length);
    expect(await page.locator("svg.energy").count()).toBe(1);
    expect(await page.locator("svg.pairs").getAttribute("data-params")).toBe(PARAMS.slice(0, 6).join(","));
    expect(await page.locator("table.summary tbody tr").count()).toBe(PARAMS.length);
    // Every trace has one drawn line per chain, inside its box.
    const lines = await page.locator("svg.trace").first().locator("path.chain").count();
    expect(lines).toBe(4);
    const box = await page.locator("svg.trace").first().boundingBox();
    expect(box!.width).toBeGreaterThan(300);

    const shots = join(dir, "shots");
    mkdirSync(shots, { recursive: true });
    const top = join(shots, "report-top.png");
    const plots = join(shots, "report-param.png");
    await page.screenshot({ path: top });
    await page.locator("section.param").first().screenshot({ path: plots });
    for (const p of [top, plots]) {
      const png = readFileSync(p);
      expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(png.length).toBeGreaterThan(10_000);
    }
    // Left in place for a person to look at.
    console.log(`report screenshots: ${top} ${plots}`);
  });

  it("stays small for 4000 draws (4 chains × 1000) × 30 parameters (thinned plots)", async () => {
    const run = join(dir, "big");
    mkdirSync(run, { recursive: true });
    const names = Array.from({ length: 30 }, (_, i) => `beta[${i + 1}]`);
    let state = 12345;
    const uniform = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
    for (let c = 0; c < 4; c++) {
      const w = writeStanCsv(fileSink(join(run, `chain-${c + 1}.csv`)), { config: sampleConfig({ model: "big", numSamples: 1000, numWarmup: 1000, seed: 1, chainId: c + 1 }), parameters: names });
      w.writeAdaptation({ stepsize: 0.5, inverseMetric: names.map(() => 1) });
      const x = new Float64Array(30);
      for (let i = 0; i < 1000; i++) {
        for (let k = 0; k < 30; k++) x[k] = 0.9 * x[k]! + (uniform() - 0.5);
        const div = uniform() < 0.002 ? 1 : 0;
        w.writeDraw([-10 - uniform(), uniform(), 0.5, 3, 7, div, 12 + 3 * uniform(), ...x]);
      }
      w.close({ warmup: 1, sampling: 1 });
    }
    const out = join(dir, "big.html");
    const r = await runCli(["report", run, "-o", out, "--pairs", "beta[3],beta[1],beta[30]"]);
    expect(r.code, r.stderr).toBe(0);
    expect(hasStackTrace(r.stderr)).toBe(false);
    const size = statSync(out).size;
    expect(size).toBeLessThan(5 * 1024 * 1024);
    const text = readFileSync(out, "utf8");
    expect(text.match(/<svg class="trace"/g)).toHaveLength(30);
    expect(text).toContain('data-params="beta[3],beta[1],beta[30]"');
    expect(text).toContain("thinned to 500 points per chain");
  });

  it("rejects --pairs naming an unknown parameter", async () => {
    const r = await runCli(["report", join(dir, "run"), "-o", join(dir, "x.html"), "--pairs", "mu,nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ppl: --pairs: 'nope' is not a parameter of this run \(parameters: mu, tau/);
  });
});
