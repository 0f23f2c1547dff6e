// Entry of a sampler worker thread (see pool.ts). The sampler is TypeScript, loaded at run time, and
// a worker thread does not get the loader of its parent (Node 20 applies neither a module.register
// made in the parent, as the ppl launcher makes it, nor an inherited --import to workers). A probe
// module tells whether TypeScript loads here; when it does not, tsx is registered first. The probe
// is a file of its own because Node remembers a module that failed to load: the entry must not be
// the one that fails. Plain JavaScript, so that Node starts it with no loader at all.
import { workerData } from "node:worker_threads";

const entry = workerData.entry;
if (entry.endsWith(".ts")) {
  try {
    await import(new URL("./probe.ts", import.meta.url).href);
  } catch (e) {
    if (e?.code !== "ERR_UNKNOWN_FILE_EXTENSION") throw e;
    const { register } = await import("tsx/esm/api");
    register();
  }
}
await import(entry);
