/**
 * A block of GLSL statements with the values already computed in it. A value computed in a
 * block is visible in blocks nested in it (loop bodies), never outside, so loop-dependent
 * values cannot leak out of their loop.
 */
export class Scope {
  readonly lines: string[] = [];
  private readonly cache = new Map<string, string>();

  constructor(readonly parent?: Scope, readonly indent = "  ") {}

  /** A nested block (a loop or branch body). */
  child(): Scope {
    return new Scope(this, this.indent + "  ");
  }

  /** Append a statement. */
  emit(line: string): void {
    this.lines.push(this.indent + line);
  }

  /** Append a nested block's lines, wrapped in `head { ... }`. */
  block(head: string, body: Scope): void {
    this.lines.push(`${this.indent}${head} {`, ...body.lines, `${this.indent}}`);
  }

  lookup(key: string): string | undefined {
    return this.cache.get(key) ?? this.parent?.lookup(key);
  }

  remember(key: string, name: string): void {
    this.cache.set(key, name);
  }
}
