// Loaded by worker-entry.mjs to learn whether this thread can load TypeScript; it exports nothing.
export {};
