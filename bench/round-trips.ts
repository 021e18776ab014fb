// Round trips of one decide request to Redis, to the ledger Durable Object and to Postgres, counted in the
// harness: counting HTTP proxies in front of the Upstash bridge and Neon's HTTP endpoint, and a counting
// wrapper around the LEDGER binding in the bundle's entry (production code is not instrumented).
//   npx tsx bench/round-trips.ts [worker-root]   (worker-root: a checkout whose workers/ is measured)

import { writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ALIASES } from "../schema/models";
import { startEdgeWorker } from "../scripts/stack/edge-worker";
import { withNodeClient } from "../scripts/stack/neon-node";
import { startServices } from "../scripts/stack/services";
import { questionFingerprint } from "../workers/decide/question-fingerprint";
import { BENCH_ADMIN_TOKEN, BENCH_GPU_SECRET, fundedAccount } from "./support/funded-account";
import { instantEngine } from "./support/instant-engine";
import { stateWordsCalibration, stateWordsWork, syntheticTicket } from "./support/state-words-calibration";

const ROOT = resolve(process.argv[2] ?? ".");

/** A proxy that forwards every HTTP request to `target` and records when each started. */
async function countingProxy(
  target: string,
): Promise<{ url: string; count: (before?: number) => number; stop: () => void }> {
  const t = new URL(target);
  const starts: number[] = [];
  const server = createServer((req, res) => {
    starts.push(performance.now());
    const up = request(
      { host: t.hostname, port: t.port, path: req.url, method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${t.pathname === "/" ? "" : t.pathname}`,
    /** Requests so far, or those that started before `before` (a `performance.now()` time). */
    count: (before = Number.POSITIVE_INFINITY) => starts.filter((at) => at < before).length,
    stop: () => server.close(),
  };
}

/** The Worker's entry with the LEDGER binding wrapped to count RPC calls; `/__bench/do-calls` reads them. */
function countingEntry(): string {
  const path = join(ROOT, "workers", ".bench-round-trips-entry.ts");
  writeFileSync(
    path,
    `import worker from "./index";
export { AccountLedger } from "./ledger/account-ledger";
let calls = 0;
let wrapped: Record<string, unknown> | undefined;
const METHODS = ["debit", "refund", "credit", "balance", "applyRefundIntents", "keepCompletion", "settleLapsed"];
function counting(ns: any) {
  return {
    idFromName: (n: string) => ns.idFromName(n),
    get(id: unknown) {
      const stub = ns.get(id);
      return Object.fromEntries(METHODS.map((m) => [m, (...a: unknown[]) => { calls++; return stub[m](...a); }]));
    },
  };
}
export default {
  ...worker,
  fetch(req: Request, env: any, ctx: any) {
    if (new URL(req.url).pathname === "/__bench/do-calls") return Response.json({ calls });
    wrapped ??= { ...env, LEDGER: counting(env.LEDGER) };
    return worker.fetch(req, wrapped, ctx);
  },
};
`,
  );
  return path;
}

/**
 * Gives the account an active calibration of BODY's question on the alias's version, as createCalibration
 * stores it (the fit's numbers do not change the round trips): a map, or (`learned`) a state-reading model.
 */
async function calibrate(
  env: Parameters<typeof fundedAccount>[0],
  accountId: string,
  learned?: { learned: string; features: string },
): Promise<void> {
  const fingerprint = await questionFingerprint({
    id: "refund",
    type: "check",
    instructions: "Does the customer ask for a refund?",
    criteria: null,
  });
  await withNodeClient(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY }, async (q) => {
    await q(
      `INSERT INTO calibrations (id, account_id, evaluation_id, question_id, model, fingerprint, question, method, map, n, metrics, features, learned)
       VALUES ($4, $1, 'eval_bench', 'refund', $2, $3, '{}', $5, '{"temperature":0.8,"bias":[0.1,0]}', 100, '{}', $6, $7)`,
      [
        accountId,
        ALIASES["svc-1"],
        fingerprint,
        learned ? "calib_01JDBENCHW0RDS00000000000" : "calib_01JDBENCH000000000000000000",
        learned ? "state_words" : "temperature_bias",
        learned?.features ?? null,
        learned?.learned ?? null,
      ],
    );
    await q("UPDATE accounts SET calibrations_generation = calibrations_generation + 1 WHERE id = $1", [
      accountId,
    ]);
  });
}

/**
 * Gives the account a review rule on BODY's question (issue 51) that keeps every decide (`sample_rate` 1), as
 * createReviewRule stores it: the decide then matches and keeps in the background.
 */
async function reviewRule(env: Parameters<typeof fundedAccount>[0], accountId: string): Promise<void> {
  const definition = '{"type":"check","instructions":"Does the customer ask for a refund?"}';
  const fingerprint = await questionFingerprint({
    id: "refund",
    type: "check",
    instructions: "Does the customer ask for a refund?",
    criteria: null,
  });
  await withNodeClient(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY }, async (q) => {
    await q(
      `INSERT INTO review_rules (id, account_id, mode, question, fingerprint, abstained, sample_rate)
       VALUES ('rrule_01JDBENCH000000000000000', $1, 'live', $2, $3, true, 1)`,
      [accountId, definition, fingerprint],
    );
    await q("UPDATE accounts SET review_rules_generation = review_rules_generation + 1 WHERE id = $1", [
      accountId,
    ]);
  });
}

const BODY = JSON.stringify({
  state: { ticket: "The parcel arrived broken and I want my money back.", customer: { tier: "gold" } },
  questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
  fallback: "never",
});

async function main(): Promise<void> {
  const services = await startServices({ databaseUrl: "", upstashUrl: "" });
  const engine = await instantEngine();
  const redis = await countingProxy(services.env.UPSTASH_REDIS_REST_URL);
  const neonHttp = await countingProxy(services.env.NEON_HTTP_ENDPOINT);
  const edge = await startEdgeWorker({
    entry: countingEntry(),
    logFile: join(tmpdir(), "svc-bench-edge.jsonl"),
    bindings: {
      ...services.env,
      UPSTASH_REDIS_REST_URL: redis.url,
      NEON_HTTP_ENDPOINT: neonHttp.url,
      GPU_POOL_URLS: engine.url,
      GPU_SIGNING_SECRET: BENCH_GPU_SECRET,
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    },
  });
  const doCalls = async () =>
    ((await (await fetch(`${edge.url}/__bench/do-calls`)).json()) as { calls: number }).calls;
  try {
    const plain = await fundedAccount(services.env, edge.url);
    const calibrated = await fundedAccount(services.env, edge.url);
    await calibrate(services.env, calibrated.accountId);
    const model = stateWordsCalibration();
    const words = await fundedAccount(services.env, edge.url);
    await calibrate(services.env, words.accountId, model);
    const reviewed = await fundedAccount(services.env, edge.url);
    const hasReviews = await tableExists(services.env, "review_rules");
    if (hasReviews) await reviewRule(services.env, reviewed.accountId);
    let headers = plain.headers;
    const decide = (extra: Record<string, string>) =>
      fetch(`${edge.url}/v1/decide`, { method: "POST", headers: { ...headers, ...extra }, body: BODY });
    await (await decide({})).text();
    console.log(
      "| decide | status | Redis | ledger DO | Postgres before the response | Postgres with background writes |",
    );
    console.log("| --- | --- | --- | --- | --- | --- |");
    for (const [label, extra, account] of [
      ["no idempotency key, warm key cache", {}, plain],
      ["fresh idempotency key, warm key cache", { "idempotency-key": `rt-${Date.now()}` }, plain],
      ["calibrated question, first decide of the isolate (maps loaded)", {}, calibrated],
      ["calibrated question, maps cached", {}, calibrated],
      ["calibrated question, fresh idempotency key", { "idempotency-key": `rt-c-${Date.now()}` }, calibrated],
      ["state-reading calibration, first decide of the isolate (model loaded)", {}, words],
      ["state-reading calibration, model cached", {}, words],
      ...(hasReviews
        ? ([
            ["review rule keeps it, first decide of the isolate (rules loaded)", {}, reviewed],
            ["review rule keeps it, rules cached", {}, reviewed],
          ] as const)
        : []),
    ] as const) {
      headers = account.headers;
      await new Promise((r) => setTimeout(r, 600)); // earlier background writes settle
      await (await fetch(`${edge.url}/v1/key`, { headers })).text(); // warms the ≤1 s key cache
      const before = { r: redis.count(), d: await doCalls(), p: neonHttp.count() };
      const res = await decide(extra);
      const answered = performance.now();
      await res.text();
      const path = { r: redis.count(answered) - before.r, p: neonHttp.count(answered) - before.p };
      const d = (await doCalls()) - before.d;
      await new Promise((r) => setTimeout(r, 600));
      console.log(
        `| ${label} | ${res.status} | ${path.r} | ${d} | ${path.p} | ${neonHttp.count() - before.p} (usage event, ledger journal${account === reviewed ? ", the rules, the kept item" : ""}) |`,
      );
    }
    // The calibration's cost in time: the same decide, alternating an account without calibrations and one
    // whose question is calibrated (fingerprint, cached lookup, map, reshaping), same run.
    const times: Record<"plain" | "calibrated", number[]> = { plain: [], calibrated: [] };
    for (let i = 0; i < 400; i++) {
      const which = i % 2 === 0 ? "plain" : "calibrated";
      headers = (which === "plain" ? plain : calibrated).headers;
      const t0 = performance.now();
      await (await decide({})).text();
      if (i >= 40) times[which].push(performance.now() - t0);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [p, c] = [median(times.plain), median(times.calibrated)];
    console.log(
      `\ndecide p50 through the edge (instant engine, 180 each, alternating): no calibrations ${p.toFixed(2)} ms, calibrated question ${c.toFixed(2)} ms (ratio ${(c / p).toFixed(2)})`,
    );
    if (hasReviews) await reviewCost(edge.url, plain.headers, reviewed.headers);
    await stateReadingCost(
      edge.url,
      { plain: plain.headers, map: calibrated.headers, words: words.headers },
      model.learned,
    );
  } finally {
    await edge.stop();
    redis.stop();
    neonHttp.stop();
    await engine.stop();
    await services.stop();
  }
}

/**
 * A review rule's cost in time (issue 51): the same decide, alternating an account without rules and one whose
 * rule keeps every decide (matched and written after the response), same run.
 */
async function reviewCost(
  url: string,
  plain: Record<string, string>,
  reviewed: Record<string, string>,
): Promise<void> {
  const times: Record<"plain" | "reviewed", number[]> = { plain: [], reviewed: [] };
  for (let i = 0; i < 400; i++) {
    const which = i % 2 === 0 ? "plain" : "reviewed";
    const headers = which === "plain" ? plain : reviewed;
    const t0 = performance.now();
    await (await fetch(`${url}/v1/decide`, { method: "POST", headers, body: BODY })).text();
    if (i >= 40) times[which].push(performance.now() - t0);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [p, r] = [median(times.plain), median(times.reviewed)];
  console.log(
    `decide p50 through the edge (instant engine, 180 each, alternating): no review rules ${p.toFixed(2)} ms, every decide kept for review ${r.toFixed(2)} ms (ratio ${(r / p).toFixed(2)})`,
  );
}

/** Whether the measured checkout's database has `table` (a checkout from before a migration lacks it). */
async function tableExists(env: Parameters<typeof fundedAccount>[0], table: string): Promise<boolean> {
  return withNodeClient(env.DATABASE_URL, { wsProxy: env.NEON_WS_PROXY }, async (q) => {
    const { rows } = await q("SELECT to_regclass($1) IS NOT NULL AS there", [table]);
    return rows[0]?.there === true;
  });
}

/**
 * A state-reading calibration's cost in time (issue 49): the same decide on a 300-word ticket, rotating an account
 * without calibrations, one with a map and one with a state-reading model on the question, same run.
 */
async function stateReadingCost(
  url: string,
  headers: Record<"plain" | "map" | "words", Record<string, string>>,
  learned: string,
): Promise<void> {
  const modelBytes = learned.length;
  const body = JSON.stringify({
    state: { ticket: syntheticTicket(9_999, 300, true) },
    questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
    fallback: "never",
  });
  const kinds = ["plain", "map", "words"] as const;
  const times: Record<(typeof kinds)[number], number[]> = { plain: [], map: [], words: [] };
  for (let i = 0; i < 600; i++) {
    const which = kinds[i % 3]!;
    const t0 = performance.now();
    const res = await fetch(`${url}/v1/decide`, { method: "POST", headers: headers[which], body });
    const text = await res.text();
    if (i < 3 && (res.status !== 200 || (which === "words") !== text.includes("calib_01JDBENCHW0RDS")))
      throw new Error(`state-reading bench: unexpected answer ${res.status} ${text}`);
    if (i >= 60) times[which].push(performance.now() - t0);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [p, m, w] = kinds.map((k) => median(times[k])) as [number, number, number];
  const work = stateWordsWork(learned, syntheticTicket(9_999, 300, true));
  console.log(
    `state-reading work of that decide, in process (median of ${work.runs}): read the model ${work.readMs.toFixed(2)} ms (once per isolate), count the words ${work.countMs.toFixed(3)} ms, apply the model ${work.applyMs.toFixed(3)} ms`,
  );
  console.log(
    `decide p50 on a 300-word ticket (instant engine, 180 each, rotating): no calibrations ${p.toFixed(2)} ms, map-calibrated ${m.toFixed(2)} ms, state-reading calibrated ${w.toFixed(2)} ms (model ${Math.round(modelBytes / 1024)} KiB): extra ${(w - p).toFixed(2)} ms over no calibration, ${(w - m).toFixed(2)} ms over a map`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
