import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ERRORS, type ErrorCode, EXTENSION_ERRORS, type RetryRule } from "../../../schema/errors";

/** The spec's "Types, statuses and codes" table: status, type, codes and retry column of each row. */
function specCodeTable(): { status: number; type: string; codes: string[]; retry: string }[] {
  const spec = readFileSync(
    new URL("../../../docs/spec/decision-service-api-v1.md", import.meta.url),
    "utf8",
  );
  const section = spec.slice(
    spec.indexOf("### Types, statuses and codes"),
    spec.indexOf("### When each code"),
  );
  return section
    .split("\n")
    .filter((line) => /^\| \d{3} \|/.test(line))
    .map((line) => {
      const [status, type, codes, retry] = line
        .split("|")
        .slice(1, 5)
        .map((cell) => cell.trim());
      return {
        status: Number(status),
        type: type!.replaceAll("`", ""),
        codes: [...codes!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!),
        retry: retry!,
      };
    });
}

/** How the spec's retry column reads for a code of a row. */
function expectedRetry(code: string, column: string): RetryRule {
  if (column === "no") return "no";
  if (column.startsWith("after a top-up")) return "after_top_up";
  if (column.startsWith("only `idempotency_in_progress`"))
    return code === "idempotency_in_progress" ? "after_retry_after" : "no";
  if (column.startsWith("yes, with the same idempotency key")) return "same_idempotency_key";
  return "after_retry_after";
}

describe("the one error catalogue equals the spec's code table (Errors → Types, statuses and codes)", () => {
  const table = specCodeTable();

  it("the table is read whole: 12 statuses", () => {
    expect(table.map((r) => r.status)).toEqual([400, 401, 402, 403, 404, 405, 409, 413, 422, 429, 500, 503]);
  });

  it("every code of the spec is in the catalogue with the row's status, type and retry rule", () => {
    for (const row of table)
      for (const code of row.codes) {
        const spec = ERRORS[code as ErrorCode];
        expect(spec, code).toBeDefined();
        expect({ code, status: spec.status, type: spec.type, retry: spec.retry }).toEqual({
          code,
          status: row.status,
          type: row.type,
          retry: expectedRetry(code, row.retry),
        });
      }
  });

  it("the catalogue has no code the spec lacks, beyond the marked extensions", () => {
    const specCodes = new Set(table.flatMap((r) => r.codes));
    expect(Object.keys(ERRORS).filter((c) => !specCodes.has(c))).toEqual(Object.keys(EXTENSION_ERRORS));
  });

  it("each extension sits under an existing type with that row's status (spec Versioning, rule 2)", () => {
    for (const [code, spec] of Object.entries(EXTENSION_ERRORS)) {
      const row = table.find((r) => r.type === spec.type);
      expect(row, code).toBeDefined();
      expect(spec.status, code).toBe(row!.status);
      expect(row!.codes, code).not.toContain(code);
    }
  });
});
