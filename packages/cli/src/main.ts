/** Entry point of `ppl` (run by tsx: `pnpm ppl …`, or the bin launcher). See cli.ts for the commands. */
import { main } from "./cli.ts";
import { abandonedCalls } from "./output-dir.ts";

process.exitCode = await main(process.argv.slice(2));
// A file-system call given up on as hung (a mount that stopped answering) would keep the process
// alive for as long as it hangs.
if (abandonedCalls() > 0) process.exit();
