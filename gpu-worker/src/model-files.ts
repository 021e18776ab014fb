import { join } from "node:path";
import { findModel, type ModelVersion, SMOLLM2_135M } from "../../schema/models";
import { defaultModelPath, modelCacheDir } from "./model-check";

/** The versions one scorer serves: one weights file, one layout, one read rule. */
export interface ScorerGroup {
  path: string;
  /** Expected sha256; undefined: `verifyModelFile`'s own rule (SVC_MODEL_SHA256 for an overridden path). */
  sha256: string | undefined;
  gpu: NonNullable<ModelVersion["gpu"]>;
  versions: string[];
}

/**
 * Groups exact versions by the weights the catalogue names for them (a version it does not know evaluates the
 * svc-1 file like svc-1.4.0). The svc-1 file honours `SVC_MODEL_PATH` and `SVC_MODEL_SHA256` (which wins when set);
 * every other file is read from the model cache under its catalogue name and checked against its sha256.
 */
export function scorerGroups(versions: string[], env = process.env): ScorerGroup[] {
  const groups = new Map<string, ScorerGroup>();
  for (const v of versions) {
    const gpu = findModel(v)?.gpu ?? (findModel("svc-1.4.0")?.gpu as NonNullable<ModelVersion["gpu"]>);
    const svc1File = gpu.weights.file === SMOLLM2_135M.file;
    const path = svc1File ? defaultModelPath(env) : join(modelCacheDir(env), gpu.weights.file);
    const group = groups.get(path);
    if (
      group &&
      JSON.stringify([group.gpu.layout, group.gpu.reads]) !== JSON.stringify([gpu.layout, gpu.reads])
    )
      throw new Error(
        `${v} and ${group.versions[0]} share ${gpu.weights.file} but not its layout or read rule`,
      );
    if (group) group.versions.push(v);
    else
      groups.set(path, {
        path,
        sha256: svc1File
          ? env.SVC_MODEL_SHA256 || (env.SVC_MODEL_PATH ? undefined : gpu.weights.sha256)
          : gpu.weights.sha256,
        gpu,
        versions: [v],
      });
  }
  return [...groups.values()];
}
