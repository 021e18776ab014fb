import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SPEC = join(dirname(fileURLToPath(import.meta.url)), "../../docs/spec/decision-service-api-v1.md");

/** One row of the spec's "Types, statuses and codes" table. */
export interface SpecErrorRow {
  status: number;
  type: string;
  codes: string[];
}

/**
 * The error catalogue as the spec's text states it (Errors → "Types, statuses and codes"), read from the
 * committed copy of the contract: an oracle independent of `schema/errors.ts`.
 */
export function specErrorTable(text: string = readFileSync(SPEC, "utf8")): SpecErrorRow[] {
  const section = text.split("### Types, statuses and codes")[1]?.split("\n### ")[0];
  if (!section) throw new Error("spec: no 'Types, statuses and codes' table");
  const rows: SpecErrorRow[] = [];
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const status = Number(cells[1]);
    if (!Number.isInteger(status) || status < 400) continue;
    const ticks = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
    rows.push({ status, type: ticks(cells[2])[0]!, codes: ticks(cells[3]) });
  }
  return rows;
}

/** code → { status, type } of the spec's table. */
export function specCodes(): Map<string, { status: number; type: string }> {
  const out = new Map<string, { status: number; type: string }>();
  for (const row of specErrorTable()) for (const code of row.codes) out.set(code, row);
  return out;
}
