import { type ErrorCode, VALIDATION_PRECEDENCE } from "../../schema/errors";
import { ApiError } from "../errors";

/** A schema code of step 3 (spec "Order of checks", precedence list). */
export type SchemaCode = (typeof VALIDATION_PRECEDENCE)[number];

/** One schema violation; `seq` is the order the walker met it in (document order). */
export interface Issue {
  code: SchemaCode;
  param: string | undefined;
  message: string;
  seq: number;
}

/** Collects every violation of a body; `first()` applies the spec's precedence, ties to document order. */
export class Issues {
  readonly list: Issue[] = [];

  add(code: SchemaCode, param: string | undefined, message: string): void {
    this.list.push({ code, param, message, seq: this.list.length });
  }

  first(): Issue | undefined {
    let best: Issue | undefined;
    let bestRank = Number.POSITIVE_INFINITY;
    for (const issue of this.list) {
      const rank = VALIDATION_PRECEDENCE.indexOf(issue.code);
      if (rank < bestRank) {
        best = issue;
        bestRank = rank;
      }
    }
    return best;
  }

  /** Throws the winning violation as an ApiError, if any. */
  throwFirst(): void {
    const issue = this.first();
    if (issue) throw new ApiError(issue.code as ErrorCode, { param: issue.param, message: issue.message });
  }
}

/** Length in Unicode code points (the spec's "characters"), counting a surrogate pair once. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Whitespace as ECMAScript `trim` sees it (Unicode White_Space of category Zs, tab, line terminators, BOM). */
export const isBlank = (s: string): boolean => s.trim() === "";
export const hasOuterWhitespace = (s: string): boolean => s.length > 0 && s.trim() !== s;

/** JSON type name for messages. */
export function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v;
}

/** Appends a segment to a dotted param path. */
export const at = (path: string, segment: string | number): string => `${path}.${segment}`;
