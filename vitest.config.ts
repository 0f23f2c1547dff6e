import { defineConfig } from "vitest/config";

// The tests run on the sources: each package's exports map the "@ppl/source" condition to src/
// (the default, for consumers, is the built dist/). The other conditions are Vite's defaults,
// which a list given here replaces.
const conditions = ["@ppl/source", "module", "node", "development|production"];

// Test files run in forked processes, which inherit this environment. glibc gives each thread that
// allocates its own malloc arena, and every GPU run on lavapipe starts new driver threads: the soak
// test's resident set grew 1.5–2.5 MB a run from arenas alone (0.3–0.6 MB with two), which hid what
// it measures. Two arenas, unless the caller chose otherwise.
process.env["MALLOC_ARENA_MAX"] ??= "2";

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts"],
    testTimeout: 120_000,
    // Hooks sample through the CLI too (a fit that several tests read), as slow as a test on a loaded 2-core machine.
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: on CI's 2 cores, one file at a time,
    // with the second core idle while a file waits on lavapipe's shader builds or a child process.
    // Two workers; PPL_TEST_WORKERS overrides (1 to reproduce a serial run).
    maxWorkers: Number(process.env["PPL_TEST_WORKERS"] ?? 2),
  },
});
