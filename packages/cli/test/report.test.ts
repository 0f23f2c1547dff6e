// `ppl report`: a self-contained HTML file, opened in headless Chromium (Debian's package) through
// playwright-core, which drives the system browser by its path and downloads nothing: it renders
// without console errors or network requests, every panel has a drawn SVG with ticks and axis
// labels, no text runs into a plot's box or into other text, the traces carry the chain legend,
// and screenshots are left in the test's output folder. A synthetic large run checks that thinning
// keeps it small and that its warnings come grouped, the sampler's first.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { fileSink, sampleConfig, writeStanCsv } from "@ppl/ppl";
import { hasStackTrace, runCli, tempDir } from "./helpers.ts";
import { reportCommand, type ReportCommandOptions } from "../src/commands/report.ts";
import { CliError } from "../src/exit-codes.ts";

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

/** What a page lays out at one width: text boxes that overlap or leave their SVG, panels that overlap, and each parameter's rows of panels. */
interface PageLayout {
  overlaps: string[];
  clipped: string[];
  panelOverlaps: string[];
  /** Per parameter section, the number of panels on each visual row. */
  rows: number[][];
  /** Titles cut with "…" that carry the whole text as a tooltip, and those that do not. */
  cutTitles: number;
  cutWithoutTooltip: number;
}

/** Measures every SVG text of the page in page coordinates (getBoundingClientRect, rotations included). */
function pageLayout(page: Page): Promise<PageLayout> {
  return page.evaluate(() => {
    type Box = { x: number; y: number; w: number; h: number; label: string };
    const rect = (e: Element, label: string): Box => {
      const r = e.getBoundingClientRect();
      return { x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height, label };
    };
    const hit = (a: Box, b: Box, inset: number): boolean => a.x < b.x + b.w - inset && b.x + inset < a.x + a.w && a.y < b.y + b.h - inset && b.y + inset < a.y + a.h;
    const texts: Box[] = [];
    const clipped: string[] = [];
    for (const svg of document.querySelectorAll("figure.panel svg")) {
      const s = rect(svg, "");
      const kind = svg.closest("figure")!.getAttribute("data-panel");
      for (const t of svg.querySelectorAll("text")) {
        const label = `${kind} ${svg.getAttribute("data-param") ?? ""}: '${t.lastChild?.textContent ?? ""}'`;
        const b = rect(t, label);
        if (b.w === 0) continue;
        texts.push(b);
        if (b.x < s.x - 1 || b.x + b.w > s.x + s.w + 1 || b.y < s.y - 1 || b.y + b.h > s.y + s.h + 1) clipped.push(label);
      }
    }
    // A sweep over the texts sorted by top: each is compared with those that start above its bottom.
    texts.sort((a, b) => a.y - b.y);
    const overlaps: string[] = [];
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length && texts[j]!.y < texts[i]!.y + texts[i]!.h; j++) {
        if (hit(texts[i]!, texts[j]!, 0.5)) overlaps.push(`${texts[i]!.label} on ${texts[j]!.label}`);
      }
    }
    const figures = [...document.querySelectorAll("figure.panel")].map((f, i) => rect(f, `${f.getAttribute("data-panel")} #${i}`));
    const panelOverlaps: string[] = [];
    figures.forEach((a, i) => figures.slice(i + 1).forEach((b) => (hit(a, b, 1) ? panelOverlaps.push(`${a.label} on ${b.label}`) : undefined)));
    const rows = [...document.querySelectorAll("section.param")].map((sec) => {
      const tops = new Map<number, number>();
      for (const f of sec.querySelectorAll("figure.panel")) {
        const top = Math.round(f.getBoundingClientRect().top);
        tops.set(top, (tops.get(top) ?? 0) + 1);
      }
      return [...tops.values()];
    });
    const cut = [...document.querySelectorAll("svg text.title")].filter((t) => (t.lastChild?.textContent ?? "").endsWith("…"));
    return { overlaps, clipped, panelOverlaps, rows, cutTitles: cut.filter((t) => t.querySelector("title")).length, cutWithoutTooltip: cut.filter((t) => !t.querySelector("title")).length };
  });
}

beforeAll(async () => {
  dir = tempDir("ppl-report-");
  const out = join(dir, "run");
  const s = await runCli([
    "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
    "--chains", "4", "--warmup", "150", "--draws", "150", "--seed", "2", "--output", out, "--quiet",
    "--log-lik", "--predictive", "--save-warmup",
  ]);
  expect(s.code, s.stderr).toBe(0);
  const p = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--prior", "--chains", "2", "--draws", "300", "--seed", "3", "--output", join(dir, "prior"), "--quiet"]);
  expect(p.code, p.stderr).toBe(0);
  html = join(dir, "report.html");
  const r = await runCli(["report", out, "-o", html, "--prior", join(dir, "prior"), "--log-scale", "tau"]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^note: 16 per-observation rows not shown \(y_rep: 8, log_lik: 8\).*\nwrote .*report.html \(\d+ KiB\)/);
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
    expect(bulk).toMatch(/^Bulk-ESS below 400 \(100 per chain, at most 400 in all\) for 30 parameters: beta\[1\] \(\d+\), beta\[2\] \(\d+\), /);
    for (const name of names) expect(bulk).toContain(`${name} (`);
    expectReadablePanels(await layout(page), names, 4);
    await page.close();
  });

  it("draws the predictive check, LOO-PIT, Pareto k, prior against posterior, warmup and log axes", async () => {
    const { page, errors } = await open(html);
    expect(errors).toEqual([]);
    const panels = await layout(page);
    const count = (kind: string): number => panels.filter((p) => p.kind === kind).length;
    // Eight schools' y is continuous, eight observations: densities and intervals by observation.
    expect([count("ppc-density"), count("ppc-intervals"), count("loo-pit"), count("pareto-k"), count("ppc-bars")]).toEqual([1, 1, 1, 1, 0]);
    expect(count("prior-posterior")).toBe(PARAMS.length);
    expect(await page.locator("svg.ppc-density").getAttribute("data-replications")).toBe("50");
    expect(await page.locator("svg.ppc-density path.replicated").getAttribute("d")).toMatch(/^(M[^M]+){50}$/);
    expect(await page.locator("svg.ppc-intervals").getAttribute("data-observations")).toBe("8");
    expect((await page.locator("svg.ppc-intervals path.observed").getAttribute("d"))!.split("M")).toHaveLength(9);
    const title = await page.locator("svg.pareto-k text.title").textContent();
    const above = await page.locator("svg.pareto-k").getAttribute("data-above");
    expect(title).toBe(`Pareto k by observation: ${above} of 8 above 0.7`);
    // 8 PIT values: 16 steps of the ECDF, inside the axis.
    expect((await page.locator("svg.loo-pit path.ecdf").getAttribute("d"))!.split(/[ML]/).length - 1).toBe(2 + 16);
    // Warmup: 150 saved iterations before the 150 draws, on a grey band, in every trace.
    expect(await page.locator("svg.trace[data-warmup='150']").count()).toBe(PARAMS.length);
    expect(await page.locator("svg.trace rect.warmup").count()).toBe(PARAMS.length);
    // tau on a log axis: its density, trace and prior-against-posterior panels and its row and column of the pair plot, with powers of ten as ticks.
    expect(await page.locator("svg[data-log]").evaluateAll((s) => s.map((e) => `${e.getAttribute("class")} ${e.getAttribute("data-param")} ${e.getAttribute("data-log")}`))).toEqual(["prior-posterior tau x", "density tau x", "trace tau y"]);
    expect(await page.locator("svg.pairs").getAttribute("data-log-params")).toBe("tau");
    const ticks = await page.locator("svg.trace[data-param=tau] text.tick.y").allTextContents();
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    for (const t of ticks) expect(Math.log10(Number(t)) % 1).toBeCloseTo(0, 9);
    await page.locator("#ppc").scrollIntoViewIfNeeded();
    const shots = join(dir, "shots");
    mkdirSync(shots, { recursive: true });
    for (const kind of ["ppc-density", "ppc-intervals", "loo-pit", "pareto-k"]) await page.locator(`figure[data-panel=${kind}]`).screenshot({ path: join(shots, `report-${kind}.png`) });
    await page.locator("div.priors").screenshot({ path: join(shots, "report-prior-posterior.png") });
    await page.close();
  });

  for (const width of [1000, 1400]) {
    it(`holds its layout at ${width} px: no text on other text or cut off by its panel, no panel on another, no panel alone on a row of a parameter's plots`, async () => {
      const { page, errors } = await open(html);
      expect(errors).toEqual([]);
      await page.setViewportSize({ width, height: 900 });
      const l = await pageLayout(page);
      expect(l.overlaps).toEqual([]);
      expect(l.clipped).toEqual([]);
      expect(l.panelOverlaps).toEqual([]);
      expect(l.rows).toHaveLength(PARAMS.length);
      // Four panels a parameter: one row of four, or two of two; never three and one.
      for (const r of l.rows) expect(r, `rows of panels at ${width} px`).toEqual(width >= 1400 ? [4] : [2, 2]);
      // Long titles (theta_trans[1] — autocorrelation) are cut to their panel, whole in a tooltip.
      expect(l.cutTitles).toBeGreaterThan(0);
      expect(l.cutWithoutTooltip).toBe(0);
      expectReadablePanels(await layout(page), PARAMS, 4);
      await page.screenshot({ path: join(dir, "shots", `report-${width}.png`), fullPage: true });
      await page.close();
    });
  }

  it("stays small for N = 300 count observations with --log-lik --predictive: bars, LOO-PIT and Pareto k instead of 600 per-observation panels", async () => {
    // A run as `ppl sample --log-lik --predictive` writes it for y ~ poisson(exp(a + b x)), N = 300:
    // draws of (a, b) near the data's values, each with its k_rep ~ poisson and log_lik columns.
    const n = 300;
    let state = 99;
    const uniform = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
    const normal = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const poisson = (rate: number): number => {
      let c = 0;
      let p = Math.exp(-rate);
      let cdf = p;
      const u = uniform();
      while (u > cdf) p *= rate / ++c, (cdf += p);
      return c;
    };
    const logFactorial = (k: number): number => Array.from({ length: k }, (_, i) => Math.log(i + 1)).reduce((s, v) => s + v, 0);
    const x = Array.from({ length: n }, () => Math.round((uniform() * 2 - 1) * 1000) / 1000);
    // Rates exp(1 + 0.8 x): at most e^1.8 ≈ 6, so the counts span a few values: bars.
    const k = x.map((xi) => poisson(Math.exp(1 + 0.8 * xi)));
    const dataFile = join(dir, "counts.json");
    writeFileSync(dataFile, JSON.stringify({ N: n, x, k }));
    const run = join(dir, "counts");
    mkdirSync(run, { recursive: true });
    const names = ["a", "b", ...x.map((_, i) => `k_rep[${i + 1}]`), ...x.map((_, i) => `log_lik[${i + 1}]`)];
    for (let c = 0; c < 2; c++) {
      const config = [...sampleConfig({ model: "poisson_regression", numSamples: 200, numWarmup: 200, seed: 5, chainId: c + 1, dataFile }), { key: "observed", value: `k[${n}]` }, { key: "int_data", value: "N,k" }];
      const w = writeStanCsv(fileSink(join(run, `chain-${c + 1}.csv`)), { config, parameters: names });
      w.writeAdaptation({ stepsize: 0.5, inverseMetric: [1, 1] });
      for (let d = 0; d < 200; d++) {
        const a = 1 + 0.06 * normal();
        const b = 0.8 + 0.1 * normal();
        const rates = x.map((xi) => Math.exp(a + b * xi));
        const ll = k.map((ki, i) => ki * Math.log(rates[i]!) - rates[i]! - logFactorial(ki));
        w.writeDraw([-400 - uniform(), uniform(), 0.5, 2, 3, 0, 402 + uniform(), a, b, ...rates.map(poisson), ...ll]);
      }
      w.close({ warmup: 1, sampling: 1 });
    }
    const out = join(dir, "counts.html");
    const stderr: string[] = [];
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => stderr.push(s) } };
    expect(reportCommand(run, { output: out, logScale: ["auto"] }, io)).toBe(0);
    expect(stderr[0]).toMatch(/^note: 600 per-observation rows not shown \(k_rep: 300, log_lik: 300\)/);
    const size = statSync(out).size;
    console.log(`report of N = ${n} with --log-lik --predictive: ${(size / 1024).toFixed(0)} KiB`);
    expect(size).toBeLessThan(2 * 1024 * 1024);
    const text = readFileSync(out, "utf8");
    expect(text.match(/<svg class="trace"/g)).toHaveLength(2);
    expect(text).toContain("300 observations, too many for intervals by observation");
    expect(text).toMatch(/<p class="note" id="hidden-variables">600 per-observation rows not shown/);
    const { page, errors } = await open(out);
    expect(errors).toEqual([]);
    const panels = await layout(page);
    expect(panels.map((p) => p.kind).filter((k) => ["ppc-bars", "ppc-density", "ppc-intervals", "loo-pit", "pareto-k"].includes(k))).toEqual(["ppc-bars", "pareto-k", "loo-pit"]);
    expect(await page.locator("svg.pareto-k").getAttribute("data-observations")).toBe("300");
    // The counts' LOO-PIT (randomized for ties) of the model that generated them stays within the 95% band.
    const pit = page.locator("svg.loo-pit");
    expect(Number(await pit.getAttribute("data-ks"))).toBeLessThan(Number(await pit.getAttribute("data-band")));
    expectReadablePanels(panels, ["a", "b"], 2);
    await page.locator("figure[data-panel=ppc-bars]").screenshot({ path: join(dir, "shots", "report-ppc-bars.png") });
    await page.close();
  });

  it("refuses --prior naming a run that is not a prior run, and --log-scale on a parameter with draws ≤ 0", async () => {
    // In this process (the exit code is main's mapping of CliError, which the test above checks through the CLI).
    const run = join(dir, "run");
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    const call = (opts: Partial<ReportCommandOptions>) => () => reportCommand(run, { output: join(dir, "x.html"), ...opts }, io);
    expect(call({ prior: run })).toThrow(CliError);
    expect(call({ prior: run })).toThrow(/--prior '.*run' is the run itself/);
    // The count model's run of the test above.
    expect(call({ prior: join(dir, "counts") })).toThrow(/--prior '.*counts' is not the output of `ppl sample --prior`/);
    expect(call({ logScale: ["mu"] })).toThrow(/--log-scale: 'mu' has a draw of -?\d/);
  });

  it("rejects --pairs naming an unknown parameter", async () => {
    const r = await runCli(["report", join(dir, "run"), "-o", join(dir, "x.html"), "--pairs", "mu,nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ppl: --pairs: 'nope' is not a variable of this run \(variables: mu, tau, theta_trans \(8\), theta \(8\), y_rep \(8\), log_lik \(8\)\)\n$/);
  });
});
