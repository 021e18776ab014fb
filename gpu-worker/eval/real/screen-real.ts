/**
 * Framing screen on the real-text TRAIN split (every SCREEN_STRIDE-th train item per type): per framing, type
 * and calibration method, fitted and measured on those train items only. Held-out items are never read here.
 */
import type { QuestionType } from "../../src/calibration";
import { getFraming } from "../../src/framings";
import type { EvalItem } from "../dataset/item";
import { fitMethod, METHODS, type Method, measure } from "./compare-real";
import { metricsTable } from "./markdown-real";
import { type RealScores, scoreReal } from "./score-real";

/** The framings screened and the types each is screened on. */
export const SCREENED: [string, QuestionType[]][] = [
  ["plain-mix-2", ["pick", "rate", "check"]],
  ["chatml-hint", ["pick", "rate", "check"]],
  ["plain-yes-no", ["check"]],
  ["chatml-qa", ["check"]],
];

export interface ScreenRow {
  framing: string;
  type: QuestionType;
  method: Method;
  nll: number;
  label: string;
  report: ReturnType<typeof measure>["report"];
}

/** Every screened (framing, type, method) on the cached scores of `subset` (all train items). */
export async function screen(subset: EvalItem[]): Promise<ScreenRow[]> {
  const rows: ScreenRow[] = [];
  for (const [id, types] of SCREENED) {
    const rs: RealScores = await scoreReal(
      id,
      subset.filter((i) => types.includes(i.type)),
      undefined,
      () => {},
    );
    for (const type of types)
      for (const method of METHODS) {
        const fit = fitMethod(type, method, subset, rs);
        const { report } = measure(type, method, fit, subset, rs);
        if (report.n)
          rows.push({ framing: id, type, method, nll: report.nll, label: `\`${id}\` ${method}`, report });
      }
  }
  return rows;
}

/** Per type, the framing whose best method has the lowest train NLL, among framings sharing `statePrefix`. */
export function chooseOnTrain(rows: ScreenRow[]): { prefix: string; perType: Record<QuestionType, string> } {
  const family = (id: string) => JSON.stringify(getFraming(id).statePrefix("STATE"));
  let best: { total: number; prefix: string; perType: Record<QuestionType, string> } | undefined;
  for (const prefix of new Set(rows.map((r) => family(r.framing)))) {
    const perType = {} as Record<QuestionType, string>;
    let total = 0;
    for (const t of ["pick", "rate", "check"] as const) {
      const top = rows
        .filter((r) => r.type === t && family(r.framing) === prefix)
        .sort((a, b) => a.nll - b.nll)[0];
      if (!top) total = Number.POSITIVE_INFINITY;
      else {
        perType[t] = top.framing;
        total += top.nll;
      }
    }
    if (!best || total < best.total) best = { total, prefix, perType };
  }
  if (!best) throw new Error("nothing screened");
  return { prefix: best.prefix, perType: best.perType };
}

export const screenTable = (rows: ScreenRow[]) =>
  metricsTable(
    "framing, method (screen: train subset)",
    rows.map((r) => ({ label: r.label, type: r.type, r: r.report })),
  );
