/** One line of the settings header: `key = value`, or a section name with children. */
export interface ConfigNode {
  readonly key: string;
  readonly value?: string | number | boolean | bigint;
  /** Marks a value the user did not set, as CmdStan's "(Default)". */
  readonly isDefault?: boolean;
  readonly children?: readonly ConfigNode[];
}

/** Sampler settings written to the Stan CSV header in CmdStan's layout. */
export interface SampleSettings {
  readonly model: string;
  readonly numSamples: number;
  readonly numWarmup: number;
  readonly saveWarmup?: boolean;
  readonly thin?: number;
  readonly adaptEngaged?: boolean;
  readonly adaptDelta?: number;
  readonly adaptGamma?: number;
  readonly adaptKappa?: number;
  readonly adaptT0?: number;
  readonly initBuffer?: number;
  readonly termBuffer?: number;
  readonly window?: number;
  readonly maxDepth?: number;
  /** The HMC engine: NUTS (CmdStan's default) or static HMC with a fixed number of leapfrog steps. */
  readonly engine?: "nuts" | "static";
  /** Leapfrog steps per transition of static HMC (written under engine = static). */
  readonly steps?: number;
  readonly metric?: "unit_e" | "diag_e" | "dense_e";
  readonly stepsize?: number;
  readonly stepsizeJitter?: number;
  /** The file the initial inverse metric was read from (CmdStan's metric_file). */
  readonly metricFile?: string;
  readonly numChains?: number;
  /** 1-based chain id. */
  readonly chainId?: number;
  readonly dataFile?: string;
  readonly init?: string | number;
  readonly seed: number | bigint | string;
  readonly outputFile?: string;
  /** Iterations between progress updates (CmdStan's output refresh); written only when given. */
  readonly refresh?: number;
  readonly startDatetime?: string;
  /** Further top-level settings (backend, device, dtype, ...), written after CmdStan's. */
  readonly extra?: Readonly<Record<string, string | number | boolean>>;
}

/** CmdStan's defaults, so that unchanged values get its "(Default)" mark. */
export const SAMPLE_DEFAULTS = {
  numSamples: 1000,
  numWarmup: 1000,
  saveWarmup: false,
  thin: 1,
  adaptEngaged: true,
  adaptDelta: 0.8,
  adaptGamma: 0.05,
  adaptKappa: 0.75,
  adaptT0: 10,
  initBuffer: 75,
  termBuffer: 50,
  window: 25,
  maxDepth: 10,
  metric: "diag_e",
  stepsize: 1,
  stepsizeJitter: 0,
  numChains: 1,
  chainId: 1,
  init: 2,
  refresh: 100,
} as const;

function entry<T extends string | number | boolean>(key: string, value: T | undefined, fallback: T): ConfigNode {
  return value === undefined || value === fallback ? { key, value: fallback, isDefault: true } : { key, value };
}

/** Builds the settings tree for a sampling run in CmdStan's order and nesting. */
export function sampleConfig(s: SampleSettings): ConfigNode[] {
  const d = SAMPLE_DEFAULTS;
  const nodes: ConfigNode[] = [{ key: "model", value: s.model }];
  if (s.startDatetime !== undefined) nodes.push({ key: "start_datetime", value: s.startDatetime });
  nodes.push(
    {
      key: "method",
      value: "sample",
      isDefault: true,
      children: [
        {
          key: "sample",
          children: [
            entry("num_samples", s.numSamples, d.numSamples),
            entry("num_warmup", s.numWarmup, d.numWarmup),
            entry("save_warmup", s.saveWarmup, d.saveWarmup),
            entry("thin", s.thin, d.thin),
            {
              key: "adapt",
              children: [
                entry("engaged", s.adaptEngaged, d.adaptEngaged),
                entry("gamma", s.adaptGamma, d.adaptGamma),
                entry("delta", s.adaptDelta, d.adaptDelta),
                entry("kappa", s.adaptKappa, d.adaptKappa),
                entry("t0", s.adaptT0, d.adaptT0),
                entry("init_buffer", s.initBuffer, d.initBuffer),
                entry("term_buffer", s.termBuffer, d.termBuffer),
                entry("window", s.window, d.window),
              ],
            },
            {
              key: "algorithm",
              value: "hmc",
              isDefault: true,
              children: [
                {
                  key: "hmc",
                  children: [
                    s.engine === "static"
                      ? { key: "engine", value: "static", children: [{ key: "static", children: [{ key: "steps", value: s.steps ?? 1 }] }] }
                      : {
                          key: "engine",
                          value: "nuts",
                          isDefault: true,
                          children: [{ key: "nuts", children: [entry("max_depth", s.maxDepth, d.maxDepth)] }],
                        },
                    entry<string>("metric", s.metric, d.metric),
                    { key: "metric_file", value: s.metricFile ?? "", isDefault: s.metricFile === undefined },
                    entry("stepsize", s.stepsize, d.stepsize),
                    entry("stepsize_jitter", s.stepsizeJitter, d.stepsizeJitter),
                  ],
                },
              ],
            },
            entry("num_chains", s.numChains, d.numChains),
          ],
        },
      ],
    },
    entry("id", s.chainId, d.chainId),
    { key: "data", children: [{ key: "file", value: s.dataFile ?? "", isDefault: s.dataFile === undefined }] },
    entry<string | number>("init", s.init, d.init),
    { key: "random", children: [{ key: "seed", value: s.seed }] },
    {
      key: "output",
      children: [
        { key: "file", value: s.outputFile ?? "output.csv", isDefault: s.outputFile === undefined },
        ...(s.refresh !== undefined ? [entry("refresh", s.refresh, d.refresh)] : []),
      ],
    },
  );
  for (const [key, value] of Object.entries(s.extra ?? {})) nodes.push({ key, value });
  return nodes;
}

function valueText(value: string | number | boolean | bigint): string {
  // CmdStan writes booleans as 1 / 0.
  if (typeof value === "boolean") return value ? "1" : "0";
  // Every setting is one comment line: a line break in a value (a file path may hold one) would
  // end it and leave the rest as a line that is not a comment, so control characters are escaped.
  return String(value).replace(/\p{Cc}/gu, (c) => (c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}

/** Renders a settings tree as `# key = value` comment lines, two spaces per level. */
export function renderConfig(nodes: readonly ConfigNode[], depth = 0): string[] {
  const lines: string[] = [];
  for (const node of nodes) {
    let line = `# ${"  ".repeat(depth)}${node.key}`;
    if (node.value !== undefined) line += ` = ${valueText(node.value)}`;
    if (node.isDefault === true) line += " (Default)";
    lines.push(line);
    if (node.children !== undefined) lines.push(...renderConfig(node.children, depth + 1));
  }
  return lines;
}
