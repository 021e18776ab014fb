import { answerCode, codeLine } from "./answer-codes";
import type { ValidatedDecide, ValidatedQuestion } from "./decide";
import type { ScoreQuestion, ScoreRequest } from "./engine-protocol";
import { isJsonObject, type JsonValue } from "./json";

/**
 * The billed rendering (docs/rendering.md): the state and each question exactly as they are tokenized and
 * charged. One module for the Worker (token limits, billing) and the GPU worker; the fixed scaffolding around
 * these pieces (system text, chat template) lives with the engine's framing and is never billed.
 */

/** A piece of a template: literal text or a `{{path}}` reference split into segments. */
export type TemplatePart = { text: string } | { path: string[]; raw: string };

const TEMPLATE = /\\\{\{|\{\{([^{}]*)\}\}/g;
const INDEX = /^(0|[1-9][0-9]*)$/;

/**
 * Splits `instructions` or `criteria` text into literal text and references. `{{ a.b.0 }}` is a reference
 * (whitespace inside the braces is trimmed; segments split on `.`); `\{{` is a literal `{{`; braces inside
 * a reference end it, so `{{` without a matching `}}` stays literal text.
 */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of text.matchAll(TEMPLATE)) {
    const start = m.index;
    if (start > last) parts.push({ text: text.slice(last, start) });
    if (m[1] === undefined) parts.push({ text: "{{" });
    else parts.push({ path: m[1].trim().split("."), raw: m[0] });
    last = start + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** The value a path names in a JSON state: object segments match keys exactly, array segments are indexes. */
export function lookupPath(state: JsonValue, path: readonly string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = state;
  for (const seg of path) {
    if (Array.isArray(cur)) cur = INDEX.test(seg) ? cur[Number(seg)] : undefined;
    else if (isJsonObject(cur)) cur = cur.entries.find(([k]) => k === seg)?.[1];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

const scalar = (v: JsonValue): string => (typeof v === "string" ? (v === "" ? '""' : v) : JSON.stringify(v));
const isEmpty = (v: JsonValue): boolean =>
  Array.isArray(v) ? v.length === 0 : isJsonObject(v) && !v.entries.length;
const emptyText = (v: JsonValue): string => (Array.isArray(v) ? "[]" : "{}");
const isContainer = (v: JsonValue): boolean => typeof v === "object" && v !== null;

/** Lines of `head` followed by a value; multi-line strings become a `|` block indented by two spaces. */
function member(head: string, v: JsonValue, item: boolean): string[] {
  if (isContainer(v) && !isEmpty(v)) {
    const inner = block(v);
    if (item) return [`- ${inner[0]}`, ...inner.slice(1).map((l) => `  ${l}`)];
    return [`${head}:`, ...inner.map((l) => `  ${l}`)];
  }
  const text = isContainer(v) ? emptyText(v) : scalar(v);
  const sep = item ? " " : ": ";
  if (typeof v === "string" && v.includes("\n"))
    return [`${head}${sep}|`, ...v.split("\n").map((l) => `  ${l}`)];
  return [`${head}${sep}${text}`];
}

function block(v: JsonValue): string[] {
  if (Array.isArray(v)) return v.flatMap((item) => member("-", item, true));
  if (isJsonObject(v)) return v.entries.flatMap(([k, item]) => member(k, item, false));
  return [scalar(v)];
}

/** The rendered state: a string as is; JSON as YAML-like `key: value` lines in the caller's order. */
export function renderState(state: JsonValue): string {
  if (typeof state === "string") return state;
  return isContainer(state) && isEmpty(state) ? emptyText(state) : block(state).join("\n");
}

/** A template with every `{{path}}` replaced by the value's text (containers by their rendered block). */
export function substitute(text: string, state: JsonValue): string {
  let out = "";
  for (const part of parseTemplate(text)) {
    if ("text" in part) out += part.text;
    else {
      const v = typeof state === "string" ? undefined : lookupPath(state, part.path);
      // References were checked in step 5; an unresolved one stays as written.
      out += v === undefined ? part.raw : isContainer(v) ? renderState(v) : scalar(v);
    }
  }
  return out;
}

const criteriaList = (q: ValidatedQuestion): string[] =>
  q.criteria === null ? [] : typeof q.criteria === "string" ? [q.criteria] : q.criteria;

/** One rendered question as billed: instructions, criteria, then options or levels with their answer codes. */
export function renderQuestion(q: ValidatedQuestion, state: JsonValue): string {
  const lines = [substitute(q.instructions, state)];
  if (typeof q.criteria === "string") lines.push(`Criteria: ${substitute(q.criteria, state)}`);
  else if (q.criteria) lines.push("Criteria:", ...q.criteria.map((c) => `- ${substitute(c, state)}`));
  if (q.type === "pick") {
    lines.push("Options:");
    for (const [i, o] of q.options.entries()) lines.push(codeLine(answerCode(i), o.label, o.description));
  } else if (q.type === "rate") {
    lines.push("Levels (lowest first):");
    for (const [i, level] of q.levels.entries()) lines.push(codeLine(answerCode(i), level));
  }
  return lines.join("\n");
}

/** The engine's pieces (schema/engine-protocol.ts): rendered state, questions with references substituted. */
export function renderForEngine(v: ValidatedDecide, model: string, requestId: string): ScoreRequest {
  const questions = v.questions.map((q): ScoreQuestion => {
    const common = {
      id: q.id,
      instructions: substitute(q.instructions, v.state),
      criteria: criteriaList(q).map((c) => substitute(c, v.state)),
      ...(q.min_confidence === undefined ? {} : { min_confidence: q.min_confidence }),
    };
    if (q.type === "pick") return { ...common, type: "pick", options: q.options };
    if (q.type === "rate") return { ...common, type: "rate", levels: q.levels };
    return { ...common, type: "check" };
  });
  return { request_id: requestId, model, state: renderState(v.state), questions };
}
