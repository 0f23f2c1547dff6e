// @ppl/stan: Stan programs as models of this toolkit — the parser (with its printer), the semantic
// checker and the compiler to the Model that the TypeScript API builds.
export { parseStan, parseStanExpression } from "./syntax/parser.ts";
export { printExpr, printStmt, printProgram, printDeclType } from "./syntax/printer.ts";
export { StanError, SourceFile, type Position, type Span, type StanErrorKind } from "./syntax/source.ts";
export type {
  Program, Stmt, Expr, Index, VarDecl, DeclType, Bounds, BaseKind, BinaryOp, AssignOp, LValue, FunDef, FunType, BlockName, Located,
} from "./syntax/ast.ts";
export { checkStan, type CheckedProgram, type SType, type Base, showType } from "./check/index.ts";
export { compileStan, checkedStan } from "./compile/compile-stan.ts";
