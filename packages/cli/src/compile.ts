import { compileModel, DataError, ModelError, unusedDataKeys, type CompiledModel, type Model } from "@ppl/ppl";
import { modelError } from "./exit-codes.ts";
import { firstLine } from "./load-model.ts";
import { inModelFile } from "./source-location.ts";

/**
 * Checks the data against the model and builds its log density. Everything that fails here comes
 * from the model file or the data, so every failure is a model or data error (exit 3) whose
 * message says which file to fix.
 */
export function compileWithData(
  model: Model, json: unknown, modelPath: string, dataPath: string | undefined, note: (line: string) => void,
): CompiledModel {
  try {
    // Keys the model does not declare are ignored, as Stan does (posteriordb's data files carry
    // some), with a note naming them: a misspelt field still shows, there or as a missing field.
    const compiled = compileModel(model, json, { allowExtraKeys: true });
    const unused = unusedDataKeys(model.data, json);
    if (unused.length > 0) {
      const keys = unused.map((k) => `'${k}'`).join(", ");
      const what = unused.length === 1 ? `key ${keys} is not a data field` : `keys ${keys} are not data fields`;
      note(`note: data file '${dataPath ?? ""}': ${what} of model '${model.name}' and ${unused.length === 1 ? "is" : "are"} ignored`);
    }
    return compiled;
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
