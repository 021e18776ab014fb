// Usage reports on real PostgreSQL: 1,000,000 usage events of one account over 90 days, rolled up with the
// repair (the same SQL rule as the writer), then GET /v1/usage's and the series' loaders by day and by hour
// through the real Neon driver and the local bridge: p50 / p99. Also the writer's throughput, the repair of
// recent hours, and the time index (BRIN vs none) for the raw-event scans.
//   BENCH_DATABASE_URL=postgresql://user:pass@127.0.0.1:5432/db npx tsx bench/usage.ts [events] [runs]
import { ulid } from "ulid";
import { applyMigrations } from "../scripts/migrations";
import { startNeonBridge } from "../scripts/stack/neon-bridge";
import { configureNeonForNode, withNodeClient } from "../scripts/stack/neon-node";
import { loadUsageReport, loadUsageSeries } from "../workers/reports/load";
import { parseUsageReportParams, parseUsageSeriesParams } from "../workers/reports/params";
import { type DbEnv, getSql } from "../workers/stores/db";
import { recordUsageEvent } from "../workers/stores/usage";
import { repairUsageRollups } from "../workers/stores/usage-rollups";

const URL_ = process.env.BENCH_DATABASE_URL;
if (!URL_) throw new Error("set BENCH_DATABASE_URL (a throw-away PostgreSQL database)");
const EVENTS = Number(process.argv[2] ?? 1_000_000);
const RUNS = Number(process.argv[3] ?? 100);
const H = 3_600_000;
const D = 24 * H;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
const ms = (t0: number) => performance.now() - t0;
const day = (t: number) => new Date(t).toISOString().slice(0, 10);

const bridge = await startNeonBridge();
configureNeonForNode({ wsProxy: bridge.wsProxy, httpEndpoint: bridge.httpEndpoint });
const env: DbEnv = {
  DATABASE_URL: URL_,
  NEON_WS_PROXY: bridge.wsProxy,
  NEON_HTTP_ENDPOINT: bridge.httpEndpoint,
};
const db = <T>(fn: Parameters<typeof withNodeClient<T>>[2]) =>
  withNodeClient(URL_, { wsProxy: bridge.wsProxy }, fn);

try {
  await db((q) => applyMigrations(q));
  const now = Math.floor(Date.now() / H) * H;
  const first = now - 90 * D + H; // the whole span stays inside the 90-day raw-event retention
  const account = `acc_${ulid()}`;

  // 1. Raw events, in time order as production appends them (5 keys, 1 in 5 a test key, 10 % fallback,
  //    3 % errors of which 2 % before the model, 1 % replays; keys, paths and outcomes vary independently).
  let t0 = performance.now();
  const chunk = 100_000;
  for (let from = 0; from < EVENTS; from += chunk) {
    const to = Math.min(EVENTS, from + chunk) - 1;
    await db((q) =>
      q(
        `INSERT INTO usage_events (request_id, account_id, key_id, mode, model, served_by, input_tokens, state_tokens,
           question_tokens, charge_micro_cents, unit_price_micro_cents, tier, status, error_code, replayed, created_at)
         SELECT 'req_b' || $2 || g, $1, 'key_b' || (g % 5), CASE WHEN g % 5 = 4 THEN 'test' ELSE 'live' END,
                CASE WHEN (g / 3) % 100 < 2 THEN NULL WHEN (g / 7) % 10 = 3 THEN 'svc-fallback-1.0.0' ELSE 'svc-1.0.0' END,
                CASE WHEN (g / 3) % 100 < 3 THEN NULL WHEN (g / 7) % 10 = 3 THEN 'fallback' ELSE 'gpu' END,
                50 + g % 400, 40 + g % 400, 10, CASE WHEN g % 5 = 4 OR (g / 3) % 100 < 3 OR (g / 11) % 100 = 50 THEN 0 ELSE 5 * (50 + g % 400) END,
                CASE WHEN g % 5 = 4 THEN 0 ELSE 5 END, CASE WHEN g % 5 = 4 THEN 'test' ELSE 't1' END,
                CASE WHEN (g / 3) % 100 < 2 THEN 422 WHEN (g / 3) % 100 < 3 THEN 429 ELSE 200 END,
                CASE WHEN (g / 3) % 100 < 2 THEN 'invalid_value' WHEN (g / 3) % 100 < 3 THEN 'requests_per_minute' END,
                (g / 11) % 100 = 50, to_timestamp(($3::bigint + (g::bigint * $4::bigint) / $5::bigint) / 1000.0)
           FROM generate_series($6::int, $7::int) g`,
        [account, account.slice(-10), first, now - first - 1, EVENTS, from, to],
      ),
    );
  }
  console.log(
    `- ${EVENTS.toLocaleString("en")} raw events inserted (bulk, 100k a statement): ${(ms(t0) / 1000).toFixed(1)} s`,
  );

  // 2. Roll-ups built by the repair from the raw events (the whole 90 days).
  t0 = performance.now();
  const built = await repairUsageRollups(env, first, account, now);
  const [{ rows: rollRows }] = await Promise.all([
    db((q) => q("SELECT count(*)::int AS n FROM usage_hourly WHERE account_id = $1", [account])),
  ]);
  console.log(
    `- Roll-ups of 90 days recomputed by repairUsageRollups: ${(ms(t0) / 1000).toFixed(1)} s, ${built.rewritten.toLocaleString("en")} rows written (${rollRows[0]!.n} roll-up rows)`,
  );
  await db(async (q) => {
    await q("VACUUM ANALYZE usage_events");
    await q("VACUUM ANALYZE usage_hourly");
  });

  // 3. The report loaders, as a route would call them.
  const lastDay = Math.floor(now / D) * D + D;
  const cases: Array<[string, () => Promise<unknown>]> = [
    [
      "GET /v1/usage, by day, 90 days",
      () =>
        loadUsageReport(
          env,
          account,
          parseUsageReportParams(
            new URLSearchParams(`start=${day(lastDay - 90 * D)}&end=${day(lastDay)}`),
            now,
          ),
        ),
    ],
    [
      "GET /v1/usage, by hour, 7 days",
      () =>
        loadUsageReport(
          env,
          account,
          parseUsageReportParams(
            new URLSearchParams(`start=${day(lastDay - 7 * D)}&end=${day(lastDay)}&granularity=hour`),
            now,
          ),
        ),
    ],
  ];
  for (const g of ["none", "key", "model", "served_by"]) {
    cases.push([
      `series group_by=${g}, by day, 90 days`,
      () =>
        loadUsageSeries(
          env,
          account,
          parseUsageSeriesParams(
            new URLSearchParams(`start=${day(lastDay - 90 * D)}&end=${day(lastDay)}&group_by=${g}`),
          ),
        ),
    ]);
    cases.push([
      `series group_by=${g}, by hour, 7 days`,
      () =>
        loadUsageSeries(
          env,
          account,
          parseUsageSeriesParams(
            new URLSearchParams(
              `start=${day(lastDay - 7 * D)}&end=${day(lastDay)}&granularity=hour&group_by=${g}`,
            ),
          ),
        ),
    ]);
  }
  console.log("\n| query (Neon driver → local bridge → PostgreSQL) | runs | p50 ms | p99 ms |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const [name, run] of cases) {
    for (let i = 0; i < 5; i++) await run();
    const lat: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await run();
      lat.push(ms(s));
    }
    console.log(`| ${name} | ${RUNS} | ${pct(lat, 50).toFixed(1)} | ${pct(lat, 99).toFixed(1)} |`);
  }

  // 4. The transport's share: a bare SELECT 1 over the same driver and bridge.
  const rt: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await getSql(env).query("SELECT 1");
    rt.push(ms(s));
  }
  console.log(
    `| SELECT 1 (transport only) | ${RUNS} | ${pct(rt, 50).toFixed(1)} | ${pct(rt, 99).toFixed(1)} |`,
  );

  // 5. The writer: one statement per event (insert + roll-up), sequential and 8 at a time.
  const writeAccount = `acc_${ulid()}`;
  const ev = (i: number) => ({
    request_id: `req_w${ulid()}`,
    account_id: writeAccount,
    key_id: `key_w${i % 5}`,
    mode: "live" as const,
    model: "svc-1.0.0",
    served_by: "gpu" as const,
    input_tokens: 100,
    state_tokens: 90,
    question_tokens: 10,
    charge_micro_cents: 500,
    unit_price_micro_cents: 5,
    tier: "t1",
    status: 200,
    error_code: null,
    replayed: false,
    at: now - (i % 3) * H,
  });
  const W = 1_000;
  t0 = performance.now();
  for (let i = 0; i < W; i++) await recordUsageEvent(env, ev(i));
  const seq = ms(t0);
  t0 = performance.now();
  for (let i = 0; i < W; i += 8)
    await Promise.all(Array.from({ length: 8 }, (_, j) => recordUsageEvent(env, ev(i + j))));
  const par = ms(t0);
  console.log(
    `\n- Writer (recordUsageEvent, one statement): ${(W / (seq / 1000)).toFixed(0)} events/s sequential, ${(W / (par / 1000)).toFixed(0)} events/s 8 at a time`,
  );

  // 6. The repair of the last 3 hours (the scheduled one), all accounts.
  const rep: number[] = [];
  for (let i = 0; i < 10; i++) {
    const s = performance.now();
    await repairUsageRollups(env, now - 2 * H, null, now);
    rep.push(ms(s));
  }
  console.log(
    `- Repair of the last 3 hours (all accounts, ~${Math.round((EVENTS * 3) / (90 * 24 - 1)).toLocaleString("en")} events): p50 ${pct(rep, 50).toFixed(0)} ms`,
  );

  // 7. Time index for the raw-event range scans: BRIN vs dropping it (inside a rolled-back transaction).
  await db(async (q) => {
    const sizes = await q(
      `SELECT relname, pg_size_pretty(pg_relation_size(oid)) AS size FROM pg_class
        WHERE relname IN ('usage_events', 'usage_events_created_brin', 'usage_events_account_created', 'usage_events_pkey', 'usage_hourly')`,
    );
    console.log(`- Sizes: ${sizes.rows.map((r) => `${r.relname} ${r.size}`).join(", ")}`);
    const scan = async () => {
      const since = new Date(now - 2 * H).toISOString();
      const t: number[] = [];
      for (let i = 0; i < 10; i++) {
        const s = performance.now();
        await q("SELECT count(*) FROM usage_events WHERE created_at >= $1", [since]);
        t.push(ms(s));
      }
      return pct(t, 50).toFixed(1);
    };
    const brin = await scan();
    await q("BEGIN");
    await q("DROP INDEX usage_events_created_brin");
    const none = await scan();
    await q("ROLLBACK");
    console.log(
      `- Raw events of the last 3 hours (all accounts): BRIN ${brin} ms, without it ${none} ms (p50 of 10)`,
    );
  });
} finally {
  await bridge.stop();
}
