import type { Position, SourceFile } from "./source.ts";

/** Token kinds: identifiers, literals, punctuation/operators (by their text) and the end of input. */
export type TokenKind = "ident" | "int" | "real" | "imag" | "string" | "op" | "eof";

/** A token with its text and where it starts and ends. */
export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: Position;
  readonly end: Position;
}

// Longest first: the lexer takes the first operator that matches at a position.
const OPERATORS = [
  "%/%", ".*=", "./=",
  "<-", "+=", "-=", "*=", "/=", "==", "!=", "<=", ">=", "&&", "||", ".*", "./", ".^",
  "+", "-", "*", "/", "%", "\\", "^", "'", "!", "<", ">", "=", "~", "?", ":", ";", ",", "|",
  "(", ")", "[", "]", "{", "}",
];

const IDENT = /[A-Za-z][A-Za-z0-9_]*/y;
// A real literal: digits with a point and/or exponent (1.5, .5, 1., 1e-3); an int: digits alone.
const NUMBER = /(?:[0-9]+(?:_[0-9]+)*\.(?:[0-9]+(?:_[0-9]+)*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:_[0-9]+)*(?:[eE][+-]?[0-9]+)?|[0-9]+(?:_[0-9]+)*[eE][+-]?[0-9]+|[0-9]+(?:_[0-9]+)*)i?/y;

/** Splits a Stan program into tokens, skipping whitespace and comments (line, block, and the old hash comments). */
export function tokenize(src: SourceFile): Token[] {
  const text = src.text;
  const out: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, len: number) => {
    out.push({ kind, text: text.slice(i, i + len), start: src.position(i), end: src.position(i + len) });
    i += len;
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r") { i++; continue; }
    if (text.startsWith("//", i) || (c === "#" && !text.startsWith("#include", i))) {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? text.length : nl;
      continue;
    }
    if (text.startsWith("/*", i)) {
      const close = text.indexOf("*/", i + 2);
      if (close < 0) throw src.error("syntax", src.position(i), "the comment opened here is never closed; end it with */");
      i = close + 2;
      continue;
    }
    if (c === "#") throw src.error("syntax", src.position(i), "#include is not supported; paste the included file into the program");
    if (c === '"') {
      const close = text.indexOf('"', i + 1);
      const nl = text.indexOf("\n", i + 1);
      if (close < 0 || (nl >= 0 && nl < close)) throw src.error("syntax", src.position(i), "the string opened here is not closed on its line; end it with \"");
      push("string", close - i + 1);
      continue;
    }
    IDENT.lastIndex = i;
    const id = IDENT.exec(text);
    if (id) { push("ident", id[0].length); continue; }
    NUMBER.lastIndex = i;
    const num = NUMBER.exec(text);
    if (num && (c !== "." || /[0-9]/.test(text[i + 1] ?? ""))) {
      const t = num[0];
      push(t.endsWith("i") ? "imag" : /[.eE]/.test(t) ? "real" : "int", t.length);
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) { push("op", op.length); continue; }
    throw src.error("syntax", src.position(i), `unexpected character '${c}'`);
  }
  out.push({ kind: "eof", text: "end of file", start: src.position(text.length), end: src.position(text.length) });
  return out;
}
