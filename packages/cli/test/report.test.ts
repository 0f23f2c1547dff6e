// `ppl report`: a self-contained HTML file, opened in headless Chromium (Debian's package) through
// playwright-core, which drives the system browser by its path and downloads nothing: it renders
// without console errors or network requests, every panel has a drawn SVG with ticks and axis
// labels, no text runs into a plot's box or into other text, the traces carry the chain legend,
// and screenshots are left in the test's output folder. A synthetic large run checks that thinning
// keeps it small and that its warnings come grouped, the sampler's first.
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { fileSink, sampleConfig, writeStanCsv } from "@ppl/ppl";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
const PARAMS = ["mu", "tau", ...Array.from({ length: 8 }, (_, i) => `theta_trans[${i + 1}]`), ...Array.from({ length: 8 }, (_, i) => `theta[${i + 1}]`)];

let dir: string;
let html: string;
let browser: BrowserContext | undefined;

/** Opens a report in headless Chromium, collecting console errors, page errors and requests. */
async function open(file: string): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  if (!browser) {
    const userDataDir = mkdtempSync(join(tmpdir(), "ppl-chromium-"));
    browser = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1150, height: 900 },
      // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ],
    });
  }
  const page = await browser.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (req) => requests.push(req.url()));
  await page.goto(`file://${file}`, { waitUntil: "load" });
  return { page, errors, requests };
}

/** What the page lays out, per panel, measured by the browser (getBBox in each SVG's coordinates). */
interface PanelLayout {
  kind: string;
  param: string | null;
  width: number;
  height: number;
  /** Drawn shapes (paths with data, lines, rects) with an area or length. */
  drawn: number;
  xTicks: number;
  yTicks: number;
  xLabels: number;
  yLabels: number;
  legendChains: number | null;
  /** Texts whose box enters a plot box's inside, or another text's box, with what they hit. */
  overlaps: string[];
}

/** Measures every figure.panel of the page. */
function layout(page: Page): Promise<PanelLayout[]> {
  return page.locator("figure.panel").evaluateAll((figures) =>
    figures.map((fig) => {
      const svg = fig.querySelector("svg")!;
      const box = (e: Element): DOMRect => (e as SVGGraphicsElement).getBBox();
      // Rotated labels: their box in the SVG's coordinates, through the element's own transform.
      const placed = (e: Element): { x: number; y: number; w: number; h: number } => {
        const b = box(e);
        const m = (e as SVGGraphicsElement).getCTM()!;
        const r = svg.getCTM()!.inverse().multiply(m);
        const pts = [new DOMPoint(b.x, b.y), new DOMPoint(b.x + b.width, b.y), new DOMPoint(b.x, b.y + b.height), new DOMPoint(b.x + b.width, b.y + b.height)].map((p) => p.matrixTransform(r));
        const xs = pts.map((p) => p.x);
        const ys = pts.map((p) => p.y);
        return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
      };
      const hit = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }, inset: number): boolean =>
        a.x < b.x + b.w - inset && b.x + inset < a.x + a.w && a.y < b.y + b.h - inset && b.y + inset < a.y + a.h;
      const texts = [...svg.querySelectorAll("text")].map((t) => ({ text: t.textContent ?? "", cls: t.getAttribute("class") ?? "", b: placed(t) }));
      const boxes = [...svg.querySelectorAll("rect.box")].map((r) => placed(r));
      const overlaps: string[] = [];
      texts.forEach((t, i) => {
        // Rows' names and the rank plot's chain numbers sit beside their box; 1 px of slack for anti-aliasing.
        for (const b of boxes) if (hit(t.b, b, 1)) overlaps.push(`'${t.text}' (${t.cls}) inside a plot box`);
        for (const u of texts.slice(i + 1)) if (hit(t.b, u.b, 0.5)) overlaps.push(`'${t.text}' (${t.cls}) on '${u.text}' (${u.cls})`);
      });
      const drawn = [...svg.querySelectorAll("path, line, rect")].filter((e) => {
        if (e.tagName === "path" && !(e.getAttribute("d") ?? "").trim()) return false;
        const b = box(e);
        return b.width > 0 || b.height > 0;
      }).length;
      const legend = svg.querySelector("g.chain-legend");
      const r = svg.getBoundingClientRect();
      return {
        kind: fig.getAttribute("data-panel") ?? "",
        param: svg.getAttribute("data-param"),
        width: r.width,
        height: r.height,
        drawn,
        xTicks: svg.querySelectorAll("text.tick.x").length,
        yTicks: svg.querySelectorAll("text.tick.y").length,
        xLabels: svg.querySelectorAll("text.axis-label.x").length,
        yLabels: svg.querySelectorAll("text.axis-label.y").length,
        legendChains: legend ? legend.querySelectorAll("line.legend-swatch").length : null,
        overlaps,
      };
    }),
  );
}

/** The checks every report's panels pass, whatever the run. */
function expectReadablePanels(panels: PanelLayout[], params: readonly string[], chains: number): void {
  for (const p of panels) {
    const where = `${p.kind} ${p.param ?? ""}`;
    expect(p.width * p.height, where).toBeGreaterThan(0);
    expect(p.drawn, `${where}: drawn shapes`).toBeGreaterThan(2);
    expect(p.overlaps, `${where}: overlapping text`).toEqual([]);
    expect(p.xTicks, `${where}: x ticks`).toBeGreaterThanOrEqual(2);
    expect(p.xLabels, `${where}: x axis labels`).toBeGreaterThanOrEqual(1);
    if (["forest", "ess", "mcse"].includes(p.kind)) continue; // their rows are named instead
    expect(p.yTicks, `${where}: y ticks`).toBeGreaterThanOrEqual(2);
    expect(p.yLabels, `${where}: y axis labels`).toBeGreaterThanOrEqual(1);
  }
  const count = (kind: string): number => panels.filter((p) => p.kind === kind).length;
  for (const kind of ["density", "trace", "rank", "autocorr"]) expect(count(kind), kind).toBe(params.length);
  for (const kind of ["forest", "ess", "mcse", "energy", "pairs"]) expect(count(kind), kind).toBe(1);
  expect(panels.filter((p) => p.kind === "trace").map((p) => p.param)).toEqual(params);
  expect(panels.filter((p) => p.kind === "density").map((p) => p.param)).toEqual(params);
  for (const t of panels.filter((p) => p.kind === "trace")) expect(t.legendChains, `legend of ${t.param}`).toBe(Math.min(chains, 8));
}

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

  it("renders in headless Chromium with no console errors and no network requests; every panel drawn, ticked and labelled; screenshots", async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium package (scripts/setup.sh does)`).toBe(true);
    const { page, errors, requests } = await open(html);
    expect(errors).toEqual([]);
    expect(requests).toEqual([`file://${html}`]);
    const panels = await layout(page);
    expectReadablePanels(panels, PARAMS, 4);
    expect(await page.locator("svg.pairs").getAttribute("data-params")).toBe(PARAMS.slice(0, 6).join(","));
    expect(await page.locator("table.summary tbody tr").count()).toBe(PARAMS.length);
    // The pair plot's shared axes: every column is ticked and named along the bottom, every row but the first (a histogram's count) along the left.
    const cells = await page.locator("svg.pairs g.cell").evaluateAll((gs) =>
      gs.map((g) => ({ row: Number(g.getAttribute("data-row")), col: Number(g.getAttribute("data-col")), x: g.querySelectorAll("text.tick.x").length, y: g.querySelectorAll("text.tick.y").length, xl: g.querySelector("text.axis-label.x")?.textContent ?? null, yl: g.querySelector("text.axis-label.y")?.textContent ?? null, marks: (g.querySelector("path.tick-mark")?.getAttribute("d") ?? "").split("M").length - 1 })),
    );
    expect(cells).toHaveLength(21);
    for (const c of cells) {
      expect(c.marks, `cell ${c.row},${c.col} tick marks`).toBeGreaterThanOrEqual(2);
      if (c.row === 5) expect([c.x >= 2, c.xl], `column ${c.col}`).toEqual([true, PARAMS[c.col]]);
      if (c.col === 0 && c.row > 0) expect([c.y >= 2, c.yl], `row ${c.row}`).toEqual([true, PARAMS[c.row]]);
    }
    // Every trace has one drawn line per chain, inside its box.
    const lines = await page.locator("svg.trace").first().locator("path.chain").count();
    expect(lines).toBe(4);
    expect(await page.locator("svg.density").first().locator("path.chain").count()).toBe(4);
    const box = await page.locator("svg.trace").first().boundingBox();
    expect(box!.width).toBeGreaterThan(300);

    // In the test's output folder, left in place for a person to look at.
    const shots = join(dir, "shots");
    mkdirSync(shots, { recursive: true });
    const files = {
      top: join(shots, "report-top.png"),
      param: join(shots, "report-param.png"),
      forest: join(shots, "report-forest.png"),
      pairs: join(shots, "report-pairs.png"),
      ess: join(shots, "report-ess.png"),
      mcse: join(shots, "report-mcse.png"),
      energy: join(shots, "report-energy.png"),
      full: join(shots, "report-full.png"),
    };
    await page.screenshot({ path: files.top });
    await page.screenshot({ path: files.full, fullPage: true });
    await page.locator("section.param").first().screenshot({ path: files.param });
    await page.locator("figure[data-panel=forest]").screenshot({ path: files.forest });
    for (const kind of ["pairs", "ess", "mcse", "energy"] as const) await page.locator(`figure[data-panel=${kind}]`).screenshot({ path: files[kind] });
    for (const p of Object.values(files)) {
      const png = readFileSync(p);
      expect(png.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
      expect(png.length).toBeGreaterThan(10_000);
    }
    console.log(`report screenshots: ${Object.values(files).join(" ")}`);
    await page.close();
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

    // 30 slowly mixing parameters and a few divergences: one line per criterion, the sampler's first.
    const { page, errors } = await open(out);
    expect(errors).toEqual([]);
    const warnings = await page.locator("ul.warnings li").evaluateAll((lis) => lis.map((li) => [li.getAttribute("data-kind"), li.textContent ?? ""] as const));
    const kinds = warnings.map(([k]) => k);
    expect(kinds[0]).toBe("divergences");
    expect(warnings[0]![1]).toMatch(/^\d+ of 4000 transitions ended with a divergence/);
    expect(new Set(kinds).size).toBe(kinds.length);
    const bulk = warnings.find(([k]) => k === "ess_bulk")![1];
    expect(bulk).toMatch(/^Bulk-ESS below 400 \(100 per chain\) for 30 parameters: beta\[1\] \(\d+\), beta\[2\] \(\d+\), /);
    for (const name of names) expect(bulk).toContain(`${name} (`);
    expectReadablePanels(await layout(page), names, 4);
    await page.close();
  });

  it("rejects --pairs naming an unknown parameter", async () => {
    const r = await runCli(["report", join(dir, "run"), "-o", join(dir, "x.html"), "--pairs", "mu,nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ppl: --pairs: 'nope' is not a variable of this run \(variables: mu, tau, theta_trans \(8\), theta \(8\)\)\n$/);
  });
});
