import type { FallbackMode } from "../../schema/decide";
import { ALIASES, FALLBACK_FOR, findModel, type ModelVersion } from "../../schema/models";
import { ApiError } from "../errors";

/** The outcome of step 4: which exact version answers and whether the fallback may stand in. */
export interface ResolvedModel {
  /** The name the caller sent (or the default alias). */
  requested: string;
  /** The exact GPU version. */
  version: ModelVersion;
  /** The fallback version allowed for this request, or null (exact version, or `fallback: never`). */
  fallback: ModelVersion | null;
}

/**
 * Step 4 of the order of checks (spec "Versioning" 3–4, fallback rules 1–2).
 * @throws ApiError 404 `model_not_found` (unknown name) or `model_retired` (retired exact version), param `model`.
 */
export function resolveModel(name: string, fallbackMode: FallbackMode): ResolvedModel {
  const isAlias = Object.hasOwn(ALIASES, name);
  const exact = isAlias ? (ALIASES[name] as string) : name;
  const version = findModel(exact);
  if (version?.served_by !== "gpu")
    throw new ApiError("model_not_found", { param: "model", message: `No model is named \`${name}\`.` });
  if (version.status === "retired")
    throw new ApiError("model_retired", { param: "model", message: `Model \`${name}\` is retired.` });
  const fallbackId = isAlias && fallbackMode === "allow" ? FALLBACK_FOR[exact] : undefined;
  const fallback = fallbackId ? (findModel(fallbackId) ?? null) : null;
  return { requested: name, version, fallback: fallback?.status === "active" ? fallback : null };
}
