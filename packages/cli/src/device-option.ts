/** `--device`: one Vulkan device index, a comma-separated list of them (the chains split over them), or `all`. */
import { InvalidArgumentError } from "commander";

const INDEX = /^\d+$/;

/** Parses `--device`: "1" → 1, "0,1" → [0, 1] (an index may repeat: two managers on one device), "all" → "all". */
export function deviceSelection(text: string): number | readonly number[] | "all" {
  const t = text.trim();
  if (t === "all") return "all";
  const parts = t.split(",").map((p) => p.trim());
  if (parts.some((p) => !INDEX.test(p) || Number(p) > 2 ** 31)) {
    throw new InvalidArgumentError("expected a device index, a comma-separated list of them (e.g. 0,1) or all (see `ppl devices`).");
  }
  const indices = parts.map(Number);
  return indices.length === 1 ? indices[0]! : indices;
}
