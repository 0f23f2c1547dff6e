// examples/cluster/: the Slurm job array and the Kubernetes Indexed Job, tested without a cluster.
// The scripts run as the batch engine would start them (the task index in SLURM_ARRAY_TASK_ID or
// JOB_COMPLETION_INDEX, the manifest's command and env), with a stub `ppl` on PATH that records its
// arguments; then the real ppl runs two tasks and the merge step, which must equal one run.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LAUNCHER, ROOT, runCli, tempDir } from "./helpers.ts";

const CLUSTER = join(ROOT, "examples/cluster");

// A directory holding an executable `ppl` with the given body.
function binWith(body: string): string {
  const bin = join(tempDir("ppl-cluster-bin-"), "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "ppl"), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, "ppl"), 0o755);
  return bin;
}

function sh(args: readonly string[], env: Record<string, string>, bin: string): { code: number | null; stdout: string; stderr: string } {
  // A clean environment, so that a variable of the machine running the tests (a real Slurm job's) does not leak in.
  const r = spawnSync("sh", args, { cwd: ROOT, env: { PATH: `${bin}:${process.env["PATH"]}`, HOME: process.env["HOME"] ?? "/tmp", ...env }, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Runs a script under the stub and returns the arguments it gave ppl.
function pplArgs(args: readonly string[], env: Record<string, string>): string[] {
  const log = join(tempDir("ppl-cluster-log-"), "args");
  const r = sh(args, { ...env, STUB_LOG: log }, binWith(`printf '%s\\n' "$@" > "$STUB_LOG"`));
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(log, "utf8").trimEnd().split("\n");
}

// The `- { name: X, value: Y }` entries of a manifest's env.
function manifestEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of text.matchAll(/- \{ name: (\w+), value: "?([^"}]*?)"? \}/g)) env[m[1]!] = m[2]!;
  return env;
}

// A manifest's `command: ["sh", SCRIPT, …]`, as the arguments of sh.
function manifestCommand(text: string): string[] {
  const m = /command: (\[.*\])/.exec(text);
  expect(m).not.toBeNull();
  const command = JSON.parse(m![1]!) as string[];
  expect(command[0]).toBe("sh");
  return command.slice(1);
}

describe("examples/cluster: index → --first-chain", () => {
  it("maps task index i to first chain i × PPL_CHAINS_PER_GROUP, and refuses an index that is not one", () => {
    const bin = binWith("exit 99");
    const at = (i: string, per?: string) => sh([join(CLUSTER, "chain-group.sh"), "--first-chain-of", i], per ? { PPL_CHAINS_PER_GROUP: per } : {}, bin);
    expect(at("0").stdout).toBe("0\n");
    expect(at("3").stdout).toBe("12\n");
    expect(at("7", "16").stdout).toBe("112\n");
    for (const bad of ["", "-1", "2a", "1.5"]) {
      const r = at(bad);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^chain-group\.sh: the task index '.*' is not a non-negative integer; .*\n$/);
    }
  });

  it("slurm-array.sh: task SLURM_ARRAY_TASK_ID=2 runs chains 8–11 of the seed into PPL_SHARED/group-2", () => {
    const text = readFileSync(join(CLUSTER, "slurm-array.sh"), "utf8");
    expect(text).toMatch(/^#SBATCH --array=0-7$/m);
    expect(readFileSync(join(CLUSTER, "slurm-merge.sh"), "utf8")).toMatch(/examples\/cluster\/merge\.sh/);
    const args = pplArgs([join(CLUSTER, "slurm-array.sh")], { SLURM_ARRAY_TASK_ID: "2", PPL_SEED: "9", PPL_SHARED: "/shared/r", PPL_ARGS: "--backend cpu --warmup 50" });
    expect(args).toEqual([
      "sample", "examples/eight_schools.ts", "--chains", "4", "--first-chain", "8", "--seed", "9", "--output", "/shared/r/group-2", "--quiet",
      "--data", "examples/eight_schools.json", "--backend", "cpu", "--warmup", "50",
    ]);
  });

  it("k8s-indexed-job.yaml: the manifest's command and env, with JOB_COMPLETION_INDEX=5, run chains 20–23", () => {
    const text = readFileSync(join(CLUSTER, "k8s-indexed-job.yaml"), "utf8");
    expect(text).toMatch(/^ {2}completionMode: Indexed$/m);
    const env = manifestEnv(text);
    expect(env).toMatchObject({ PPL_SEED: "20261201", PPL_CHAINS_PER_GROUP: "4", PPL_SHARED: "/shared/run1" });
    const args = pplArgs(manifestCommand(text), { ...env, JOB_COMPLETION_INDEX: "5" });
    expect(args.slice(0, 11)).toEqual(["sample", "examples/eight_schools.ts", "--chains", "4", "--first-chain", "20", "--seed", "20261201", "--output", "/shared/run1/group-5", "--quiet"]);
    const merge = readFileSync(join(CLUSTER, "k8s-merge-job.yaml"), "utf8");
    expect(manifestCommand(merge)).toEqual(["examples/cluster/merge.sh"]);
    expect(manifestEnv(merge)["PPL_SHARED"]).toBe(env["PPL_SHARED"]);
  });

  it("refuses a task without a seed or shared storage, naming the variable", () => {
    const bin = binWith("exit 99");
    const noSeed = sh([join(CLUSTER, "chain-group.sh"), "0"], { PPL_SHARED: "/x" }, bin);
    expect(noSeed.code).not.toBe(0);
    expect(noSeed.stderr).toMatch(/PPL_SEED: chain-group\.sh: set PPL_SEED to the run's seed/);
    const noShared = sh([join(CLUSTER, "chain-group.sh"), "0"], { PPL_SEED: "1" }, bin);
    expect(noShared.stderr).toMatch(/PPL_SHARED: chain-group\.sh: set PPL_SHARED/);
    const noGroups = sh([join(CLUSTER, "merge.sh")], { PPL_SHARED: tempDir() }, bin);
    expect(noGroups.code).toBe(2);
    expect(noGroups.stderr).toMatch(/^merge\.sh: no group-\* directories in /);
  });
});

describe("examples/cluster: two tasks and the merge step, with the real ppl", () => {
  const shared = tempDir("ppl-cluster-shared-");
  const full = join(tempDir("ppl-cluster-full-"), "full");
  const bin = binWith(`exec "${process.execPath}" "${LAUNCHER}" "$@"`);
  const env = { PPL_SEED: "31", PPL_SHARED: shared, PPL_CHAINS_PER_GROUP: "2", PPL_ARGS: "--backend cpu --warmup 100 --draws 60" };
  let merged: ReturnType<typeof sh>;

  beforeAll(async () => {
    const tasks = ["0", "1"].map((i) => sh([join(CLUSTER, "slurm-array.sh")], { ...env, SLURM_ARRAY_TASK_ID: i }, bin));
    for (const t of tasks) expect(t.code, t.stderr).toBe(0);
    merged = sh([join(CLUSTER, "merge.sh")], { PPL_SHARED: shared }, bin);
    const r = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "cpu", "--warmup", "100", "--draws", "60", "--seed", "31", "--chains", "4", "--quiet", "--output", full]);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);

  it("the merged directory holds the 4-chain run's draws and summary", async () => {
    expect(merged.code, merged.stderr).toBe(0);
    const rows = (p: string) => readFileSync(p, "utf8").split("\n").filter((l) => l !== "" && !l.startsWith("#"));
    for (let c = 1; c <= 4; c++) expect(rows(join(shared, "merged", `chain-${c}.csv`))).toEqual(rows(join(full, `chain-${c}.csv`)));
    const summary = await runCli(["summary", full]);
    expect(merged.stdout).toBe(summary.stdout);
  });
});
