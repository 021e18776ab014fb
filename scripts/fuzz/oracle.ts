import type { JsonValue } from "../../schema/json";
import { decide } from "../../workers/routes/decide/post";
import type { Body } from "./bodies";
import type { Outcome } from "./pipeline";
import { specCodes } from "./spec-catalogue";

const SPEC = specCodes();

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The order-preserving tree as the plain value JSON.parse would give (for comparing the two parsers). */
function plain(v: JsonValue): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(v.entries.map(([k, x]) => [k, plain(x)]));
  return v;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * True when a string token of a JSON text (one JSON.parse accepts) escapes half a surrogate pair. Tokens are
 * read from the text, not from the parsed value, where a repeated key may have overwritten the one that had it.
 */
function escapesLoneSurrogate(text: string): boolean {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return false;
  return (text.match(/"(?:[^"\\]|\\.)*"/g) ?? []).some((token) => LONE_SURROGATE.test(JSON.parse(token)));
}

/**
 * What is wrong with one answer, or [] when it is right:
 * - the code and its status are the spec's (its "Types, statuses and codes" table) and the decide route
 *   declares the code (the Worker answers an undeclared one as 500 in the test tiers);
 * - the strict parser agrees with JSON.parse: a text JSON.parse refuses is `invalid_json`; one it accepts is
 *   parsed to the same value, unless it repeats a key (`duplicate_key`, JSON pointer in `param`) or escapes
 *   half a surrogate pair (`invalid_json`);
 * - a body built valid passes (only the token limits, step 6, may refuse it).
 */
export function judge(body: Body, outcome: Outcome): string[] {
  const problems: string[] = [];
  if (!outcome.ok) {
    const spec = SPEC.get(outcome.code);
    if (!spec) problems.push(`code ${outcome.code} is not in the spec's catalogue`);
    else if (spec.status !== outcome.status)
      problems.push(`${outcome.code}: status ${outcome.status}, spec ${spec.status}`);
    if (!decide.codes.has(outcome.code as never))
      problems.push(`${outcome.code} is not declared by POST /v1/decide`);
    if (outcome.code === "duplicate_key" && !outcome.param?.startsWith("/"))
      problems.push(`duplicate_key param ${outcome.param} is not a JSON pointer`);
  }
  if (body.valid && !(outcome.ok || outcome.status === 413))
    problems.push(`a valid body was refused: ${outcome.ok ? "" : `${outcome.code} ${outcome.param}`}`);
  problems.push(...parserDisagreement(body, outcome));
  return problems;
}

function parserDisagreement(body: Body, outcome: Outcome): string[] {
  // Deep bodies: JSON.stringify (and this oracle's own walk) would overflow; the parser's answer is judged above.
  if (body.bytes.byteLength > 256 * 1024 || body.kind === "deep") return [];
  let text: string;
  try {
    text = decoder.decode(body.bytes);
  } catch {
    return !outcome.ok && outcome.code === "invalid_json"
      ? []
      : ["bytes that are not UTF-8 passed the parser"];
  }
  const parsedBy = outcome.ok || outcome.step > 2 ? "strict" : outcome.code;
  let reference: unknown;
  try {
    reference = JSON.parse(text);
  } catch {
    return parsedBy === "invalid_json"
      ? []
      : [`JSON.parse refuses it but the strict parser gave ${parsedBy}`];
  }
  if (escapesLoneSurrogate(text))
    return parsedBy === "invalid_json"
      ? []
      : [`a lone surrogate escape passed the strict parser (${parsedBy})`];
  if (parsedBy === "duplicate_key") return [];
  if (parsedBy !== "strict") return [`JSON.parse accepts it but the strict parser gave ${parsedBy}`];
  if (body.duplicated) return ["a repeated key passed the strict parser"];
  if (outcome.value !== undefined && JSON.stringify(plain(outcome.value)) !== JSON.stringify(reference))
    return ["the strict parser's value differs from JSON.parse's"];
  return [];
}
