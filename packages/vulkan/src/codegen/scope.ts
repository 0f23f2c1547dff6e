// A GLSL identifier in an index expression (a loop variable, a value's name, a built-in).
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/**
 * A block of GLSL statements with the values already computed in it. A value computed in a
 * block is visible in blocks nested in it (loop bodies), never outside, so loop-dependent
 * values cannot leak out of their loop.
 *
 * A loop body made with loop() names what varies in it (its loop variables and the variables it
 * declares itself); the values computed in it vary too. A value whose index reads none of them is
 * placed before the loop (loop-invariant code motion, ExprRenderer.value): computed once, not
 * every iteration. On the H200 the sums over hier's 100k rows evaluated exp(log σ) in every
 * iteration, a chain of a hundred dependent instructions in front of each load.
 */
export class Scope {
  readonly lines: string[] = [];
  private readonly cache = new Map<string, string>();
  // For a loop body: the names that vary in it. Undefined for other blocks (branches, the
  // function's top), which nothing is moved out of.
  private readonly varying: Set<string> | undefined;

  constructor(readonly parent?: Scope, readonly indent = "  ", varying?: readonly string[]) {
    this.varying = varying ? new Set(varying) : undefined;
  }

  /** A nested block (a branch body, or a loop body whose values are never moved out of it). */
  child(): Scope {
    return new Scope(this, this.indent + "  ");
  }

  /** A nested loop body whose values vary only through `varying` and the values computed in it. */
  loop(varying: readonly string[]): Scope {
    return new Scope(this, this.indent + "  ", varying);
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
    this.varying?.add(name);
  }

  /**
   * Where a value whose index is the GLSL `expressions` is computed: this block, or the outermost
   * block reached by leaving loop bodies in which none of their identifiers varies.
   */
  placement(expressions: readonly string[]): Scope {
    // Outside loop bodies (most blocks) nothing moves, and the index is not parsed.
    if (this.varying === undefined) return this;
    const identifiers = expressions.flatMap((e) => e.match(IDENTIFIER) ?? []);
    let s: Scope = this;
    while (s.varying !== undefined && s.parent !== undefined && !identifiers.some((id) => s.varying!.has(id))) s = s.parent;
    return s;
  }
}
