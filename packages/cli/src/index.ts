export { main, buildProgram, reportError } from "./cli.ts";
export { ExitCode, CliError, type ExitCodeValue } from "./exit-codes.ts";
export { chooseBackend, type BackendChoice, type BackendRequest } from "./choose-backend.ts";
