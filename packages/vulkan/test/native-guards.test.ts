// Hostile calls straight into the addon: wrong receivers, disguised objects,
// junk arguments. Each must throw a JS error; a crash would kill this worker
// and fail the run.
import { afterAll, describe, expect, it } from "vitest";
import { loadAddon, type NativeAddon } from "../src/index.ts";
import { lavapipe } from "./helpers.ts";

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
});
