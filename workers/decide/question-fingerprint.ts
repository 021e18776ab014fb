import type { ValidatedQuestion } from "../../schema/decide";
import { sha256Hex } from "../../schema/hex";

const str = (s: string) => JSON.stringify(s);

/**
 * The question as the caller wrote it, as JSON text in the public shape with its order kept: type,
 * instructions and criteria as written ({{path}} templates unrendered; absent when null), then options (label
 * → description, in order) or levels. Not part of it: the question id, `min_confidence` and the state.
 */
export function questionDefinition(q: ValidatedQuestion): string {
  const members = [`"type":${str(q.type)}`, `"instructions":${str(q.instructions)}`];
  if (q.criteria !== null) members.push(`"criteria":${JSON.stringify(q.criteria)}`);
  if (q.type === "pick")
    members.push(
      `"options":{${q.options.map((o) => `${str(o.label)}:${o.description === null ? "null" : str(o.description)}`).join(",")}}`,
    );
  if (q.type === "rate") members.push(`"levels":[${q.levels.map(str).join(",")}]`);
  return `{${members.join(",")}}`;
}

/** SHA-256 hex of the question's definition: what a decide's question must match for a calibration to apply. */
export function questionFingerprint(q: ValidatedQuestion): Promise<string> {
  return sha256Hex(questionDefinition(q));
}
