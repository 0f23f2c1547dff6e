import { afterAll, describe, expect, it } from "vitest";
import { VulkanManager } from "../src/index.ts";
import { compile, lavapipe } from "./helpers.ts";

// Sequence.dispatchIndirect: a dispatch whose workgroup counts a buffer holds when it runs, so that
// an earlier kernel of the same sequence can shrink a later one to nothing (the device shape's
// gradient kernels after every chain is done).
const device = lavapipe();
const manager = new VulkanManager(device.index);
afterAll(() => manager.destroy());

// Each workgroup adds 1 to its own counter: the counters show which workgroups ran.
const COUNT = `#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Hits { uint hits[]; };
void main() { hits[gl_WorkGroupID.x] += 1u; }`;

// Writes the counts (x, 1, 1) at slot s of the args buffer from the push constant.
const SET = `#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Args { uint args[]; };
layout(push_constant) uniform Push { uint slot; uint x; };
void main() { args[3u * slot] = x; args[3u * slot + 1u] = 1u; args[3u * slot + 2u] = 1u; }`;

const words = (...v: number[]) => Uint32Array.from(v);
const push = (slot: number, x: number) => words(slot, x).buffer;

describe("indirect dispatch", () => {
  it("runs the workgroups the args buffer holds when the command runs, after a kernel of the same sequence wrote them", async () => {
    const count = manager.algorithm(await compile(COUNT), { buffers: 1 });
    const set = manager.algorithm(await compile(SET), { buffers: 1, pushConstantSize: 8 });
    const hits = manager.buffer(16 * 4);
    const args = manager.buffer(2 * 12);
    hits.fillZero();
    args.write(words(5, 1, 1, 3, 1, 1));
    const s = manager.sequence()
      .dispatchIndirect(count, [hits], args) // 5 workgroups, as written by the host
      .dispatch(set, [args], 1, push(0, 2)) // slot 0 → 2 workgroups
      .dispatchIndirect(count, [hits], args, 0) // 2
      .dispatch(set, [args], 1, push(1, 0)) // slot 1 → none
      .dispatchIndirect(count, [hits], args, 12); // 0: no workgroups
    s.submitSync();
    expect(Array.from(new Uint32Array(hits.read())).slice(0, 6)).toEqual([2, 2, 1, 1, 1, 0]);
    // Resubmitted, the counts are read again: now 2 then 2 (slot 0 still holds 2), slot 1 none.
    s.submitSync();
    expect(Array.from(new Uint32Array(hits.read())).slice(0, 6)).toEqual([4, 4, 1, 1, 1, 0]);
    // The host's own write between submissions is what the next run reads.
    args.write(words(6, 1, 1), 12);
    manager.sequence().dispatchIndirect(count, [hits], args, 12).submitSync();
    expect(Array.from(new Uint32Array(hits.read())).slice(0, 7)).toEqual([5, 5, 2, 2, 2, 1, 0]);
    s.destroy();
    [hits, args].forEach((b) => b.destroy());
    count.destroy();
    set.destroy();
  });

  it("refuses counts past the args buffer, an unaligned offset and host memory, naming the fix", async () => {
    const count = manager.algorithm(await compile(COUNT), { buffers: 1 });
    const hits = manager.buffer(64);
    const args = manager.buffer(12);
    const readback = manager.readbackBuffer(12);
    const s = manager.sequence();
    expect(() => s.dispatchIndirect(count, [hits], args, 4)).toThrow(/no three uint32 workgroup counts at offset 4/);
    expect(() => s.dispatchIndirect(count, [hits], args, 2)).toThrow(/not a multiple of 4/);
    expect(() => s.dispatchIndirect(count, [hits], readback)).toThrow(/host memory.*device buffer/);
    expect(() => s.dispatchIndirect(count, [], args)).toThrow(/takes 1 buffers, got 0/);
    s.destroy();
    [hits, args, readback].forEach((b) => b.destroy());
    count.destroy();
  });
});
