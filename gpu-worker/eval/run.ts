/**
 * `npm run eval`: scores the labelled set under every framing variant (cached in .cache/eval), fits calibration
 * on the train split, reports the held-out split, writes the calibration artifact, docs/quality.md tables and
 * docs/img/reliability.png.
 *   --score-only   stop after scoring
 *   --dry          write nothing (no artifact, PNG or docs); print the tables
 *   --cached-only  score nothing; report from .cache/eval as it is
 *   --stride N     compare the variants on every N-th wave-1 item of each type (a stratified subset; default 5) and
 *                  score the full set only for the finalists (`--full a,b:check`; default: the committed finalists and code-letters)
 */
import { wave1Positions } from "./build-dataset";
import { loadDataset } from "./load";
import { VARIANTS } from "./plan";
import { scoreAll } from "./score-all";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const stride = Number(arg("--stride") ?? 5);
/** The committed artifact's finalists (per type) and the answer-code baseline. */
const DEFAULT_FULL =
  "plain-qa:pick,plain-answer-is:rate,plain-qa-listed:rate,plain-qa-yes-no-cap:check,code-letters";
const full = (arg("--full") ?? DEFAULT_FULL).split(",");

const items = loadDataset();
const positions = wave1Positions();
const subset = items.filter((it) => (positions.get(it.id) ?? 1) % stride === 0);
const cachedOnly = process.argv.includes("--cached-only");
const compared = await scoreAll(subset, VARIANTS, console.log, cachedOnly);
// `--full id` or `--full id:type` (only that type's items) per finalist.
const finalists = full.map((f) => f.split(":") as [string, string?]);
const finals = await scoreAll(
  items,
  VARIANTS.flatMap((v) => {
    const wanted = finalists.filter(([id]) => id === v.framing.id).map(([, t]) => t);
    if (!wanted.length) return [];
    const types = wanted.includes(undefined) ? v.types : v.types.filter((t) => wanted.includes(t));
    return [{ ...v, types }];
  }),
  console.log,
  cachedOnly,
);
if (!process.argv.includes("--score-only")) {
  const { evaluateAndWrite } = await import("./report");
  await evaluateAndWrite(
    { items, subset, stride, compared, finals },
    console.log,
    process.argv.includes("--dry"),
  );
}
