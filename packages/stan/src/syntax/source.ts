/** A position in a Stan program: 1-based line and column, 0-based offset. */
export interface Position {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/** A span of source text, from `start` up to (not including) `end`. */
export interface Span {
  readonly start: Position;
  readonly end: Position;
}

/** The kinds of error a Stan program can raise before it runs: syntax, semantic, or an unsupported construct. */
export type StanErrorKind = "syntax" | "semantic" | "unsupported";

/**
 * An error in a Stan program, located as Stan's compiler locates them: `file:line:column`, then
 * the message; `excerpt` shows the line with a caret under the column.
 */
export class StanError extends Error {
  override readonly name: string;
  constructor(
    readonly kind: StanErrorKind,
    readonly file: string,
    readonly position: Position,
    readonly detail: string,
    readonly excerpt: string = "",
  ) {
    super(`${file}:${position.line}:${position.column}: ${label(kind)}: ${detail}`);
    this.name = kind === "syntax" ? "StanSyntaxError" : kind === "semantic" ? "StanSemanticError" : "StanUnsupportedError";
  }
}

function label(kind: StanErrorKind): string {
  return kind === "syntax" ? "syntax error" : kind === "semantic" ? "semantic error" : "not supported";
}

/** The text of a Stan program with its file name, which errors cite. */
export class SourceFile {
  private readonly lineStarts: number[] = [0];
  constructor(readonly text: string, readonly name: string) {
    for (let i = 0; i < text.length; i++) if (text[i] === "\n") this.lineStarts.push(i + 1);
  }

  /** The position of a 0-based offset. */
  position(offset: number): Position {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - this.lineStarts[lo]! + 1, offset };
  }

  /** The source line at `pos` with a caret under its column, for messages. */
  excerpt(pos: Position): string {
    const start = this.lineStarts[pos.line - 1] ?? 0;
    const end = this.text.indexOf("\n", start);
    const line = this.text.slice(start, end < 0 ? undefined : end);
    return `${String(pos.line).padStart(4)} | ${line}\n     | ${" ".repeat(Math.max(0, pos.column - 1))}^`;
  }

  /** An error at `pos` of this file. */
  error(kind: StanErrorKind, pos: Position, detail: string): StanError {
    return new StanError(kind, this.name, pos, detail, this.excerpt(pos));
  }
}
