import type { BlockName } from "../syntax/ast.ts";
import type { Span } from "../syntax/source.ts";
import type { SType } from "./types.ts";

/** Where a variable was declared, which decides where it may be assigned. */
export type Origin = Exclude<BlockName, "functions"> | "local" | "loop" | "argument";

/** A variable in scope: its type, origin, where it was declared, and whether it holds data only (no parameters). */
export interface VarInfo {
  readonly name: string;
  readonly type: SType;
  readonly origin: Origin;
  readonly span: Span;
  readonly dataOnly: boolean;
}

/** Nested scopes of variables (blocks, loops, function bodies), innermost last. */
export class Scopes {
  private readonly frames: Map<string, VarInfo>[] = [new Map()];

  /** Runs `f` in a new innermost scope. */
  within<T>(f: () => T): T {
    this.frames.push(new Map());
    try {
      return f();
    } finally {
      this.frames.pop();
    }
  }

  lookup(name: string): VarInfo | undefined {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const v = this.frames[i]!.get(name);
      if (v) return v;
    }
    return undefined;
  }

  /** Declares a variable in the innermost scope; returns the earlier declaration of the name if there is one. */
  declare(v: VarInfo): VarInfo | undefined {
    const before = this.lookup(v.name);
    if (!before) this.frames[this.frames.length - 1]!.set(v.name, v);
    return before;
  }
}
