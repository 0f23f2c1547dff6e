/** Where a command writes: stdout for results, stderr for messages and progress. */
export interface CommandIO {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { readonly isTTY?: boolean; write(chunk: string): unknown };
}

/** The process's own streams. */
export const processIO: CommandIO = { stdout: process.stdout, stderr: process.stderr };
