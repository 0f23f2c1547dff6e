export { ModelError, DataError } from "./errors.ts";
export { data, describeField, type DataSpec, type DataField, type DataKind, type DataValues, type DataBounds, type Size, type ArrayOptions } from "./data-spec.ts";
export { checkData, unusedDataKeys, type CheckedData, type CheckDataOptions } from "./check-data.ts";
export { model, isModel, type Model, type ModelBuilder, type ModelDefinition, type ParamOptions } from "./model.ts";
export { compileModel, type CompiledModel, type ParamInfo, type GeneratedInfo, type RecordedModel } from "./compile.ts";
export type { DeclaredParam, DeclaredObservation, DeclaredQuantity, DeclaredTerm } from "./builder.ts";
export type { GeneratedDraw, GeneratedValue, GeneratedFunction, GeneratedOptions, NestedNumbers } from "./generated.ts";
export { stanNames, flattenStanOrder, copyInStanOrder } from "./stan-names.ts";
