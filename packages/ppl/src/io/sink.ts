import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";

/** Destination for streamed text. */
export interface TextSink {
  /** Appends a chunk of text. */
  write(chunk: string): void;
  /** Flushes and closes the destination; nothing is written after. */
  close(): void;
}

/**
 * A file sink that hands every chunk to the operating system at once
 * (synchronous writes, no buffering in the process), so a run that is killed
 * keeps every row written before it.
 */
export function fileSink(path: string): TextSink {
  const fd = openSync(path, "w");
  let open = true;
  return {
    write(chunk: string): void {
      if (!open) throw new Error(`cannot write to ${path}: the file is already closed`);
      writeSync(fd, chunk);
    },
    close(): void {
      if (!open) return;
      open = false;
      fsyncSync(fd);
      closeSync(fd);
    },
  };
}

/** A sink that keeps what is written in memory. */
export interface StringSink extends TextSink {
  /** Everything written so far. */
  text(): string;
}

/** An in-memory sink; `text()` returns everything written so far. */
export function stringSink(): StringSink {
  const chunks: string[] = [];
  return {
    write(chunk: string): void {
      chunks.push(chunk);
    },
    close(): void {},
    text(): string {
      return chunks.join("");
    },
  };
}
