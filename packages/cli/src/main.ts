/** Entry point of `ppl` (run by tsx: `pnpm ppl …`, or the bin launcher). See cli.ts for the commands. */
import { main } from "./cli.ts";
import { ExitCode } from "./exit-codes.ts";
import { abandonedCalls } from "./output-dir.ts";
import { STOP_SIGNALS } from "./stop-signals.ts";

// A reader that goes away (`ppl summary DIR | head`) makes the next write fail with EPIPE, which
// Node reports as an unhandled error with its stack; the command stops quietly instead, with the
// code SIGPIPE would give.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(ExitCode.brokenPipe);
    throw e;
  });
}

process.exitCode = await main(process.argv.slice(2));
// A command stopped by a signal has closed its files; what may still run (a sampler worker thread
// starting, its bundle being built) must not hold the exit past the 2 s a stop promises.
if ((Object.values(STOP_SIGNALS) as number[]).includes(process.exitCode)) process.exit();
// A file-system call given up on as hung (a mount that stopped answering) would keep the process
// alive for as long as it hangs.
if (abandonedCalls() > 0) process.exit();
