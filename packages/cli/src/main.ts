/** Entry point of `ppl` (run by tsx: `pnpm ppl …`, or the bin launcher). See cli.ts for the commands. */
import { main } from "./cli.ts";

process.exitCode = await main(process.argv.slice(2));
