import { compileModel, DataError, ModelError, type CompiledModel, type Model } from "@ppl/ppl";
import { modelError } from "./exit-codes.ts";
import { firstLine } from "./load-model.ts";
import { inModelFile } from "./source-location.ts";

/**
 * Checks the data against the model and builds its log density. Everything that fails here comes
 * from the model file or the data, so every failure is a model or data error (exit 3) whose
 * message says which file to fix.
 */
export function compileWithData(model: Model, json: unknown, modelPath: string, dataPath: string | undefined): CompiledModel {
  try {
    return compileModel(model, json);
  } catch (e) {
    if (e instanceof DataError) {
      const where = dataPath === undefined ? "no data file was given (pass --data DATA.json)" : `data file '${dataPath}'`;
      throw modelError(`${where}: ${e.message}`, e);
    }
    // By name too: a model file outside an ESM package loads its own copy of the ppl package, whose ModelError is another class.
    if (e instanceof ModelError || (e instanceof Error && e.name === "ModelError")) throw modelError(inModelFile(modelPath, e, e.message), e);
    throw modelError(inModelFile(modelPath, e, `building model '${model.name}' failed: ${firstLine(e)}`), e);
  }
}
