/**
 * A text file read a chunk at a time and handed on a line at a time, never as one string: a
 * chain file of millions of draws can pass the longest string JavaScript holds (about 512 MiB),
 * and reading it whole would hold every draw's text at once.
 */
import { closeSync, openSync, readSync } from "node:fs";

// 1 MiB a read: the chunk's text and its lines are garbage once handed on, and a larger chunk only holds more of it.
const CHUNK_BYTES = 1 << 20;

/**
 * Calls `line` for every line of the file at `path` (read in chunks, without line ends) until it
 * returns "stop". A last line without its newline (a write cut short) comes with a negative number.
 */
export function eachLine(path: string, line: (text: string, lineNo: number) => void | "stop"): void {
  const fd = openSync(path, "r");
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const decoder = new TextDecoder();
  const strip = (t: string): string => (t.endsWith("\r") ? t.slice(0, -1) : t);
  let rest = "";
  let lineNo = 0;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const parts = (rest + decoder.decode(buffer.subarray(0, n), { stream: true })).split("\n");
      rest = parts.pop()!;
      for (const p of parts) if (line(strip(p), ++lineNo) === "stop") return;
    }
    rest += decoder.decode();
    if (rest !== "") line(strip(rest), -(lineNo + 1));
  } finally {
    closeSync(fd);
  }
}
