/**
 * `npm run eval`: the one evaluation command (docs/quality.md). Answers the held-out items of a labelled set
 * with an exact version as it is served (its weights, read rule, framing, phrasings and calibration: the
 * engine itself) and prints the metrics per type and per family: accuracy, AUC of P(yes), ECE-15 with its
 * noise floor, Brier, NLL, mean confidence. Raw scores are cached per question in `.cache/eval/<weights>/`, so
 * a re-run, another calibration on the same framing or a report only scores what is new.
 *   --set real|computed|needle  the real-text set, the computed control, or facts in long states (`--lengths`)
 *   --model <exact version>     the version measured
 *   --compare <exact version>   also answer the same items with another version, as served
 *   --framing <id>              also ask in this framing with the identity map (raw label scores), or fit on it
 *   --every N                   every N-th item per type (train and held-out alike)
 *   --type pick|rate|check      only the items of this type
 *   --shard k/n                 only part k of n (by state; with --fit its train items too): n processes, one per
 *                               core, fill the score cache in 1/n of the time; then run once without it to report
 *                               or to --write
 *   --fit                       fit one temperature per type on the train items (also shown: identity, and
 *                               the best of temperature + bias, length normalisation and per outcome count,
 *                               which is not written); --write writes it as the version's artifact, only where
 *                               that artifact is still the identity (unfitted)
 *   --bias check,…              the fit of these types is a temperature and a bias fitted together (check: the
 *                               yes bias), for a fit on enough items (svc-1.5.1: the whole train split)
 *   --base <exact version>      with --fit --type: the other types of what --write writes are this version's
 *                               (svc-1.5.1: check refitted, pick and rate svc-1.5.0's)
 *   --png <file>                reliability diagram: red = the first row, blue = the last
 *   --threads N                 threads of the evaluation (default 1)
 *   --rope none|yarn|linear     RoPE scaling written over SmolLM2's file (long states)
 *   --build                     rebuild the set's committed files from their sources instead (real, computed)
 *   --customer 50,100,200       each family as one customer's question (issue 44): the API's calibration fit on
 *                               its first n train items (answered as served), measured on its held-out items
 *   --family a,b                only these families (the source up to its first `:`)
 *   --cap 200,100               at most this many train, then held-out items per family (the first ones)
 *   --words-only                with --customer: no model runs; every answer is uniform, so only the state's words
 *                               can teach (what the state-reading model learns alone, on every item of a family)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { nll } from "../../schema/metrics";
import { V1_LIMITS } from "../../schema/models";
import { CALIBRATION_DIR, type Calibration, type QuestionType } from "../src/calibration";
import { contextSizeFor } from "../src/context-size";
import { Engine } from "../src/engine";
import { customerFits, customerFitTable } from "./customer-fit";
import { calibrate, fitBest, fitTemperature, fitTemperatureAndBias } from "./fit";
import { NEEDLE_LENGTHS, needleItems, ROPE_CONFIGS } from "./long-context/needle";
import { fmt } from "./markdown";
import { type Answered, familyOf, reliability, reportTables } from "./report";
import { buildSet, capPerFamily, everyNth, loadSet, shard } from "./sets";
import {
  answer,
  examples,
  type GpuVersion,
  gpuVersion,
  identityCalibration,
  Scorers,
  servedCalibration,
} from "./versions";

const USAGE =
  "usage: npm run eval -- --set real|computed|needle --model <exact version> [--compare <exact version>] [--framing <id>] [--every N] [--type pick|rate|check] [--shard k/n] [--fit [--bias check,…] [--base <exact version>] [--write]] [--png <file>] [--threads N] [--rope none|yarn|linear] [--lengths 0,2000,…]\n" +
  "       npm run eval -- --set real|computed --build";
const TYPES: QuestionType[] = ["pick", "rate", "check"];
const log = (line: string) => console.log(line);

const { values: o } = parseArgs({
  options: {
    set: { type: "string" },
    model: { type: "string" },
    compare: { type: "string" },
    framing: { type: "string" },
    every: { type: "string", default: "1" },
    type: { type: "string" },
    shard: { type: "string" },
    fit: { type: "boolean", default: false },
    bias: { type: "string", default: "" },
    base: { type: "string" },
    write: { type: "boolean", default: false },
    png: { type: "string" },
    threads: { type: "string", default: "1" },
    rope: { type: "string", default: "none" },
    lengths: { type: "string" },
    build: { type: "boolean", default: false },
    customer: { type: "string" },
    family: { type: "string" },
    cap: { type: "string" },
    "words-only": { type: "boolean", default: false },
  },
  strict: true,
});
const fail = (why: string): never => {
  console.error(`${why}\n${USAGE}`);
  process.exit(2);
};

const set = o.set as string;
if (!["real", "computed", "needle"].includes(set)) fail("--set real|computed|needle is required");
if (o.build) {
  if (set === "needle") fail("the needle set is built for the model it is asked to (no files to build)");
  for (const line of buildSet(set as "real" | "computed")) log(line);
  process.exit(0);
}
const exact = (id: string): GpuVersion => {
  try {
    return gpuVersion(id);
  } catch (e) {
    return fail((e as Error).message);
  }
};
const version = o.model ? exact(o.model) : fail("--model <exact version> is required");
const served = servedCalibration(version);
const framing = o.framing ?? served.framing;
const every = Number(o.every);
if (!(every >= 1)) fail("--every takes a whole number ≥ 1");
if (o.type !== undefined && !TYPES.includes(o.type as QuestionType)) fail("--type: pick, rate or check");
if (!(o.rope in ROPE_CONFIGS)) fail(`--rope: one of ${Object.keys(ROPE_CONFIGS).join(", ")}`);
if (o.write && !o.fit) fail("--write writes what --fit fits");
const biased = o.bias ? (o.bias.split(",") as QuestionType[]) : [];
if (biased.some((t) => !TYPES.includes(t))) fail("--bias: a list of pick, rate, check");
if (biased.length && !o.fit) fail("--bias shapes what --fit fits");
const fitTypes = o.type ? [o.type as QuestionType] : TYPES;
if (o.base !== undefined && !(o.fit && o.type)) fail("--base gives the types --fit --type leaves alone");
if (o.write && o.type && !o.base) fail("--write --type: name the version the other types come from (--base)");
const base = o.base === undefined ? undefined : servedCalibration(exact(o.base));
if (base && base.framing !== framing)
  fail(`--base: ${base.version} is fitted on ${base.framing}, not ${framing}`);
if (o.fit && set === "needle") fail("the needle set has no train items to fit on");
const [part, parts] = (o.shard ?? "0/1").split("/").map(Number) as [number, number];
if (!(Number.isInteger(part) && Number.isInteger(parts) && parts >= 1 && part >= 0 && part < parts))
  fail("--shard k/n: 0 ≤ k < n");
if (o.shard && o.write) fail("--shard fills the cache; write the fit in one run without it");
const identity = JSON.stringify({ temperature: 1, bias: [] });
if (o.write && framing !== version.gpu.framing)
  fail(`--write: the catalogue pins ${version.id}'s framing to ${version.gpu.framing}`);
if (o.write && !TYPES.every((t) => JSON.stringify(served.types[t]) === identity))
  fail(
    `--write: ${served.version} is fitted, and ${version.id} keeps answering as it does; give a new exact version an identity artifact and fit that`,
  );

const scorers = new Scorers({
  threads: Number(o.threads),
  contextSize: contextSizeFor(V1_LIMITS),
  rope: o.rope,
  ropeScaling: ROPE_CONFIGS[o.rope],
});
try {
  let all = set === "needle" ? [] : loadSet(set as "real" | "computed");
  if (set === "needle") {
    const { model } = await scorers.of(version).real();
    const lengths = o.lengths?.split(",").map(Number) ?? NEEDLE_LENGTHS;
    all = needleItems(lengths, (s) => model.tokenize(s).length);
  }
  const families = o.family?.split(",");
  const [trainCap, heldCap] = (o.cap ?? `${Infinity},${Infinity}`).split(",").map(Number) as [number, number];
  const items = shard(
    capPerFamily(
      everyNth(all, every).filter(
        (it) =>
          (o.type === undefined || it.type === o.type) && (!families || families.includes(familyOf(it))),
      ),
      trainCap,
      heldCap,
    ),
    part,
    parts,
  );
  const held = items.filter((it) => it.split === "heldout");
  const train = items.filter((it) => it.split === "train");
  const count = (xs: typeof items, types = TYPES) =>
    types.map((t) => `${t} ${xs.filter((i) => i.type === t).length}`).join(", ");
  log(
    `${set} set${every > 1 ? `, 1 item in ${every} per type` : ""}${parts > 1 ? `, part ${part} of ${parts}` : ""}: held-out ${count(held)}; train ${count(train)}`,
  );

  if (o.customer) {
    const sizes = o.customer.split(",").map(Number);
    if (!sizes.every((n) => Number.isInteger(n) && n > 0)) fail("--customer: item counts, e.g. 50,100,200");
    const t0 = performance.now();
    const uniform = (it: (typeof items)[number]) => {
      const q = it.question;
      const k = q.type === "check" ? 2 : q.type === "pick" ? q.options.length : q.levels.length;
      return new Array<number>(k).fill(1 / k);
    };
    const p = o["words-only"]
      ? new Map(items.map((it) => [it.id, uniform(it)]))
      : await answer(new Engine(scorers.of(version), served, version.id), items, log);
    log(
      `${version.id} (${served.version}): ${items.length} answered in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    if (parts === 1) log(`\n${customerFitTable(customerFits(items, p, sizes))}`);
    if (o["words-only"]) process.exit(0);
  }
  const rows: Answered[] = [];
  const ask = async (v: GpuVersion, cal: Calibration, label: string) => {
    const t0 = performance.now();
    rows.push({ label, p: await answer(new Engine(scorers.of(v), cal, v.id), held, log) });
    log(`${label}: ${held.length} answered in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  };
  if (o.compare) {
    const other = exact(o.compare);
    const cal = servedCalibration(other);
    await ask(other, cal, `${other.id} (${cal.version})`);
  }
  if (framing === served.framing) await ask(version, served, `${version.id} (${served.version})`);
  let fitted: Calibration | undefined;
  if (o.fit) {
    const ex = await examples(scorers.of(version), framing, train);
    const types = {} as Calibration["types"];
    const best = {} as Calibration["types"];
    for (const t of fitTypes) {
      types[t] = biased.includes(t) ? fitTemperatureAndBias(t, ex[t]) : fitTemperature(ex[t]);
      best[t] = fitBest(t, ex[t]).fit;
      const trainNll = (fit: Calibration["types"][QuestionType]) =>
        fmt(
          nll(
            ex[t].map((e) => calibrate(t, fit, e)),
            ex[t].map((e) => e.answer),
          ),
        );
      log(
        `fit ${t} on ${ex[t].length} train items: ${JSON.stringify(types[t])}; train NLL identity ${trainNll(identityCalibration(framing).types[t])}, this fit ${trainNll(types[t])}, best of temperature + bias ${trainNll(best[t])}`,
      );
    }
    await ask(version, identityCalibration(framing), `${version.id} raw (${framing}, identity)`);
    await ask(
      version,
      { ...identityCalibration(framing), types: best },
      `${version.id} best of temperature + bias (${framing}; fitted, not written)`,
    );
    fitted = { version: served.version, framing, types: { ...base?.types, ...types } };
    await ask(
      version,
      fitted,
      `${version.id} ${biased.length ? `temperature, + bias on ${biased.join(", ")}` : "temperature"} (${framing}; fitted)`,
    );
  } else if (o.framing)
    await ask(version, identityCalibration(framing), `${version.id} raw (${framing}, identity)`);

  log(`\n${reportTables(rows, held)}`);
  if (o.png && rows.length) {
    writeFileSync(o.png, reliability(rows[0] as Answered, rows.at(-1) as Answered, held));
    log(`\n${o.png}: red = ${rows[0]?.label}, blue = ${rows.at(-1)?.label}`);
  }
  if (o.write && fitted) {
    const path = join(CALIBRATION_DIR, `${fitted.version}.json`);
    const how = biased.length ? `a bias too on ${biased.join(", ")}` : "no bias";
    const kept = base
      ? `; ${TYPES.filter((t) => !fitTypes.includes(t)).join(" and ")} as ${base.version}`
      : "";
    const note = `Fitted by \`npm run eval -- ${process.argv.slice(2).join(" ")}\`: a temperature per type fitted by NLL on the train items (${count(train, fitTypes)}), ${how}${kept}; numbers in docs/quality.md.`;
    writeFileSync(
      path,
      `${JSON.stringify({ version: fitted.version, framing, note, types: fitted.types }, null, 2)}\n`,
    );
    log(`\nwrote ${path}`);
  }
} finally {
  await scorers.close();
  for (const [file, s] of scorers.stats())
    log(
      `${file}: ${s.scored} questions scored in ${s.seconds.toFixed(0)} s (${s.tokensEvaluated} tokens), ${s.cached} read from the cache`,
    );
}
