import type { Span } from "./source.ts";

/** Every AST node carries the span of source text it was parsed from. */
export interface Located {
  readonly span: Span;
}

// ---------------------------------------------------------------- expressions

/** An index inside brackets: a single expression, a range a:b (either end optional), or all (:). */
export type Index =
  | ({ readonly kind: "single"; readonly expr: Expr } & Located)
  | ({ readonly kind: "range"; readonly lower: Expr | undefined; readonly upper: Expr | undefined } & Located);

/** Stan's binary operators, by their text. */
export type BinaryOp = "||" | "&&" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "+" | "-" | "*" | "/" | "%" | "%/%" | "\\" | ".*" | "./" | "^" | ".^";

/** An expression of Stan's language. */
export type Expr =
  | ({ readonly kind: "int"; readonly value: number; readonly text: string } & Located)
  | ({ readonly kind: "real"; readonly value: number; readonly text: string } & Located)
  | ({ readonly kind: "imag"; readonly text: string } & Located)
  | ({ readonly kind: "string"; readonly value: string } & Located)
  | ({ readonly kind: "var"; readonly name: string } & Located)
  | ({ readonly kind: "binary"; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr } & Located)
  | ({ readonly kind: "unary"; readonly op: "-" | "+" | "!"; readonly operand: Expr } & Located)
  | ({ readonly kind: "transpose"; readonly operand: Expr } & Located)
  | ({ readonly kind: "cond"; readonly test: Expr; readonly then: Expr; readonly else: Expr } & Located)
  | ({ readonly kind: "call"; readonly name: string; readonly args: readonly Expr[]; readonly conditional: boolean } & Located)
  | ({ readonly kind: "index"; readonly target: Expr; readonly indices: readonly Index[] } & Located)
  | ({ readonly kind: "array"; readonly elements: readonly Expr[] } & Located)
  | ({ readonly kind: "rowvector"; readonly elements: readonly Expr[] } & Located)
  | ({ readonly kind: "paren"; readonly inner: Expr } & Located);

// ---------------------------------------------------------------- types

/** The bounds or affine transform of a declaration: <lower=, upper=> or <offset=, multiplier=>. */
export type Bounds =
  | { readonly kind: "none" }
  | { readonly kind: "range"; readonly lower: Expr | undefined; readonly upper: Expr | undefined }
  | { readonly kind: "affine"; readonly offset: Expr | undefined; readonly multiplier: Expr | undefined };

/** The base kinds of a declared type; the constrained vector and matrix types are their own kinds. */
export type BaseKind =
  | "int" | "real" | "complex" | "vector" | "row_vector" | "matrix"
  | "complex_vector" | "complex_row_vector" | "complex_matrix"
  | "simplex" | "unit_vector" | "sum_to_zero_vector" | "ordered" | "positive_ordered"
  | "cholesky_factor_corr" | "cholesky_factor_cov" | "corr_matrix" | "cov_matrix"
  | "column_stochastic_matrix" | "row_stochastic_matrix" | "sum_to_zero_matrix";

/** A declared type: its base kind, bounds, the base's sizes (vector[N]: [N]) and array dimensions. */
export interface DeclType extends Located {
  readonly base: BaseKind;
  readonly bounds: Bounds;
  readonly sizes: readonly Expr[];
  readonly arrayDims: readonly Expr[];
}

/** A variable declaration, optionally with an initial value. */
export interface VarDecl extends Located {
  readonly kind: "decl";
  readonly type: DeclType;
  readonly name: string;
  readonly nameSpan: Span;
  readonly init: Expr | undefined;
}

// ---------------------------------------------------------------- statements

/** The assignment operators. */
export type AssignOp = "=" | "+=" | "-=" | "*=" | "/=" | ".*=" | "./=";

/** The target of an assignment: a variable with zero or more index lists (x, x[i], x[i][j, k]). */
export interface LValue extends Located {
  readonly name: string;
  readonly indices: readonly (readonly Index[])[];
}

/** A statement of Stan's language. */
export type Stmt =
  | VarDecl
  | ({ readonly kind: "assign"; readonly target: LValue; readonly op: AssignOp; readonly value: Expr } & Located)
  | ({ readonly kind: "tilde"; readonly value: Expr; readonly dist: string; readonly distSpan: Span; readonly args: readonly Expr[]; readonly truncation: { readonly lower: Expr | undefined; readonly upper: Expr | undefined } | undefined } & Located)
  | ({ readonly kind: "target"; readonly value: Expr } & Located)
  | ({ readonly kind: "for"; readonly variable: string; readonly lower: Expr; readonly upper: Expr; readonly body: Stmt } & Located)
  | ({ readonly kind: "foreach"; readonly variable: string; readonly collection: Expr; readonly body: Stmt } & Located)
  | ({ readonly kind: "while"; readonly test: Expr; readonly body: Stmt } & Located)
  | ({ readonly kind: "if"; readonly test: Expr; readonly then: Stmt; readonly else: Stmt | undefined } & Located)
  | ({ readonly kind: "break" } & Located)
  | ({ readonly kind: "continue" } & Located)
  | ({ readonly kind: "return"; readonly value: Expr | undefined } & Located)
  | ({ readonly kind: "print" | "reject" | "fatal_error"; readonly args: readonly Expr[] } & Located)
  | ({ readonly kind: "call"; readonly call: Expr & { readonly kind: "call" } } & Located)
  | ({ readonly kind: "block"; readonly body: readonly Stmt[] } & Located)
  | ({ readonly kind: "profile"; readonly label: string; readonly body: readonly Stmt[] } & Located)
  | ({ readonly kind: "empty" } & Located);

// ---------------------------------------------------------------- functions and the program

/** A type in a function signature: data-only or not, base, and the number of array dimensions. */
export interface FunType extends Located {
  readonly dataOnly: boolean;
  readonly base: "void" | "int" | "real" | "complex" | "vector" | "row_vector" | "matrix" | "complex_vector" | "complex_row_vector" | "complex_matrix" | "tuple";
  readonly arrayDims: number;
}

/** A user-defined function: its return type, name, arguments and body (undefined for a forward declaration). */
export interface FunDef extends Located {
  readonly returnType: FunType;
  readonly name: string;
  readonly args: readonly { readonly type: FunType; readonly name: string; readonly span: Span }[];
  readonly body: Stmt | undefined;
}

/** The program's blocks, by their names. */
export type BlockName = "functions" | "data" | "transformed data" | "parameters" | "transformed parameters" | "model" | "generated quantities";

/** A Stan program: its function definitions and each block's statements (declarations first, as Stan requires where it matters). */
export interface Program {
  readonly functions: readonly FunDef[];
  readonly blocks: Readonly<Partial<Record<Exclude<BlockName, "functions">, readonly Stmt[]>>>;
  /** Where each block starts, for messages. */
  readonly blockSpans: Readonly<Partial<Record<BlockName, Span>>>;
}
