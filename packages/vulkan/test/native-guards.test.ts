// Hostile calls straight into the addon: wrong receivers, disguised objects,
// junk arguments. Each must throw a JS error; a crash would kill this worker
// and fail the run.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { addonPath, loadAddon, type NativeAddon } from "../src/index.ts";
import { compile, lavapipe } from "./helpers.ts";

function addon(): NativeAddon {
  const load = loadAddon();
  if (!load.ok) throw new Error(load.reason);
  return load.addon;
}

const native = addon();
const manager = new native.Manager(lavapipe().index, {});
const buffer = new native.Buffer(manager, 16);
const sequence = new native.Sequence(manager);
afterAll(() => manager.destroy());

const junk: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  Number.NaN,
  2 ** 60,
  "x",
  {},
  [],
  [buffer, {}],
  new Uint8Array(3),
  new Uint32Array([0x07230203, 0, 0, 0, 0]),
  () => 1,
  Symbol("s"),
  Object.create(native.Buffer.prototype as object),
];

describe("native guards", () => {
  it("refuses methods called on the wrong receiver", () => {
    const read = (native.Buffer.prototype as Record<string, unknown>).read as (this: unknown) => unknown;
    expect(() => read.call(manager)).toThrow(TypeError);
    expect(() => read.call(sequence)).toThrow(TypeError);
    expect(() => read.call({})).toThrow();
    const submit = (native.Sequence.prototype as Record<string, unknown>).submitSync as (this: unknown) => unknown;
    expect(() => submit.call(buffer)).toThrow(TypeError);
  });

  it("refuses objects disguised with another class's prototype", () => {
    const disguised = new native.Buffer(manager, 8);
    Object.setPrototypeOf(disguised, native.Manager.prototype);
    expect(() => new native.Buffer(disguised as never, 4)).toThrow(/manager has the wrong type/);
    const fakeBuffer = Object.create(native.Buffer.prototype as object) as never;
    expect(() => sequence.copy(fakeBuffer, buffer)).toThrow(TypeError);
  });

  it("throws JS errors for junk arguments to every entry point", () => {
    let calls = 0;
    const attempt = (fn: () => unknown) => {
      calls++;
      try {
        const result = fn();
        if (result instanceof Promise) result.catch(() => undefined);
      } catch (error) {
        expect(error).toBeInstanceOf(Error);
      }
    };
    for (const a of junk) {
      for (const b of junk) {
        attempt(() => new native.Buffer(a as never, b as never));
        attempt(() => new native.Algorithm(manager, a as never, b as never, undefined, 0));
        attempt(() => new native.Manager(a as never, b as never));
        attempt(() => buffer.write(a as never, b as never));
        attempt(() => buffer.read(a as never, b as never));
        attempt(() => buffer.readAsync(a as never, b as never));
        attempt(() => sequence.copy(a as never, b as never));
        attempt(() => sequence.copy(buffer, buffer, a as never, b as never, 8));
        attempt(() => sequence.dispatch(a as never, b as never, 1, 1, 1));
      }
    }
    expect(calls).toBe(junk.length * junk.length * 9);
    // Still healthy afterwards.
    buffer.write(new Uint8Array([5, 6, 7]), 1);
    expect(Array.from(new Uint8Array(buffer.read(3, 1)))).toEqual([5, 6, 7]);
  });

  it("survives a worker thread terminated while its GPU work runs", async () => {
    const spirv = await compile(`#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(push_constant) uniform Push { uint iterations; };
void main() {
  float v = y[gl_GlobalInvocationID.x];
  for (uint k = 0; k < iterations; k++) v = v * 0.9999999 + 1e-7;
  y[gl_GlobalInvocationID.x] = v;
}`);
    // The worker submits long work and awaits it; the parent terminates the
    // worker at several moments (during setup, during the wait).
    const script = `
const { Worker, isMainThread, workerData, parentPort } = require("node:worker_threads");
if (isMainThread) {
  (async () => {
    for (const delay of [5, 60, 250]) {
      const worker = new Worker(__filename, { workerData: JSON.parse(process.argv[2]) });
      await new Promise((resolve) => worker.once("message", resolve));
      await new Promise((resolve) => setTimeout(resolve, delay));
      await worker.terminate();
    }
    console.log("ok");
  })();
} else {
  const a = require(workerData.addon);
  parentPort.postMessage("started");
  const m = new a.Manager(undefined, {});
  const b = new a.Buffer(m, 64 * 64 * 4);
  const alg = new a.Algorithm(m, Uint32Array.from(workerData.spirv), 1, undefined, 4);
  const s = new a.Sequence(m).dispatch(alg, [b], 64, 1, 1, new Uint32Array([2000000]));
  s.submit().then(() => s.submit());
}`;
    const file = join(mkdtempSync(join(tmpdir(), "ppl-worker-")), "terminate.cjs");
    writeFileSync(file, script);
    const data = JSON.stringify({ addon: addonPath, spirv: Array.from(spirv) });
    const child = spawnSync(process.execPath, [file, data], { encoding: "utf8", timeout: 60_000 });
    expect(child.signal).toBeNull();
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("ok");
  });
});
