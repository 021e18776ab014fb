// npm run bench:batch — issue 42's "Measure", on the local stack (bench/support/batch-stack.ts: PGlite, Redis,
// one real GPU worker on CPU serving svc-1.4.0, the edge in workerd with persisted Durable Objects and R2),
// appended to docs/benchmarks.md (## Batches). Parts (BATCH_PARTS, default all, in this order):
// - throughput: BATCH_LINES (default 10,000) short lines on svc-1.4.0 as one batch, from upload to `completed`,
//   against the same lines sent as decides by a client at its best concurrency (1, 2, 4, 8 tried on
//   BATCH_PROBE_LINES lines each, default 100);
// - latency: a README-like live decide, sequential, one every ~300 ms: BATCH_LATENCY_N (default 30) idle before the
//   batch, and as many as fit while the batch of the throughput part runs (at least that many when it lasts);
// - memory: the workerd process's RSS (VmRSS every 100 ms) while BATCH_UPLOAD_LINES (default 100,000) lines of
//   ~1,000 bytes are uploaded as a chunked stream, then once with content-length; each batch cancelled and deleted;
// - crash: BATCH_CRASH_LINES (default 300) lines while the GPU worker is SIGKILLed and started again, Redis is
//   restarted empty and the edge is restarted on its persisted state: every line answered once, the balance moved
//   by exactly the results' charges (GET /v1/balance, and the ledger journal in Postgres).
// BATCH_WRITE=0 prints the section without writing the doc. Exit code 1 when a crash-safety check fails.
import { execSync } from "node:child_process";
import { cpus } from "node:os";
import { fetch } from "undici";
import { DEMO_DECIDE } from "../scripts/stack/demo-decide";
import {
  type BatchLineResult,
  batchResultProblems,
  batchResults,
  FINISHED,
  getBatch,
  type SoakBatch,
  ticketLines,
  uploadBatch,
  waitForBatch,
} from "../soak/batch-scenario";
import { send } from "../soak/client";
import { BATCH_BENCH_MODEL, type BatchStack, startBatchStack } from "./support/batch-stack";
import { loadAverage, prependToBenchmarks } from "./support/report";
import { rssBytes, sampleRss, workerdPid } from "./support/rss-sampler";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const LINES = env("BATCH_LINES", 10_000);
const PROBE_LINES = env("BATCH_PROBE_LINES", 100);
const LATENCY_N = env("BATCH_LATENCY_N", 30);
const UPLOAD_LINES = env("BATCH_UPLOAD_LINES", 100_000);
const CRASH_LINES = env("BATCH_CRASH_LINES", 300);
const PARTS = new Set((process.env.BATCH_PARTS ?? "throughput,latency,memory,crash").split(","));
const FUNDS = 1e12;
const PACE_MS = 300;

const t0 = Date.now();
const out: string[] = [];
const say = (s: string) => {
  out.push(s);
  console.log(s);
};
const note = (s: string) => console.error(`[${((Date.now() - t0) / 1000).toFixed(0)} s] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const la = () => loadAverage(1);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? Number.NaN;
};
const f1 = (x: number) => x.toFixed(1);
const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);

/** One decide; throws unless 200. */
async function decide(base: string, secret: string, body: unknown): Promise<number> {
  const t = performance.now();
  const res = await send(`${base}/v1/decide`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`decide answered ${res.status}: ${res.text.slice(0, 300)}`);
  return performance.now() - t;
}

/** Sends `bodies` as decides through `concurrency` clients; lines per second. */
async function decideAll(
  base: string,
  secret: string,
  bodies: unknown[],
  concurrency: number,
): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) await decide(base, secret, bodies[next++]);
    }),
  );
  return bodies.length / ((performance.now() - t) / 1000);
}

const README_DECIDE = { ...DEMO_DECIDE, model: BATCH_BENCH_MODEL };

/** Sequential README decides, one started every ~PACE_MS, while `more()` says so; latencies in ms. */
async function paced(base: string, secret: string, more: (n: number) => boolean): Promise<number[]> {
  const ms: number[] = [];
  while (more(ms.length)) {
    const started = performance.now();
    ms.push(await decide(base, secret, README_DECIDE));
    await sleep(Math.max(0, PACE_MS - (performance.now() - started)));
  }
  return ms;
}

const bodiesOf = (jsonl: string) => jsonl.split("\n").map((l) => (JSON.parse(l) as { body: unknown }).body);

async function throughputAndLatency(s: BatchStack): Promise<void> {
  const live = await s.liveAccount(FUNDS);
  let idle: number[] = [];
  if (PARTS.has("latency")) {
    note(`latency: ${LATENCY_N} idle README decides`);
    await decide(s.edgeUrl(), live.secret, README_DECIDE); // warm-up
    idle = await paced(s.edgeUrl(), live.secret, (n) => n < LATENCY_N);
  }
  const { jsonl, customIds } = ticketLines(LINES, BATCH_BENCH_MODEL, "line");
  const bodies = bodiesOf(jsonl);
  const client = await s.liveAccount(FUNDS);
  const probes: Array<[number, number]> = [];
  if (PARTS.has("throughput")) {
    for (const c of [1, 2, 4, 8]) {
      const rate = await decideAll(s.edgeUrl(), client.secret, bodies.slice(0, PROBE_LINES), c);
      probes.push([c, rate]);
      note(`probe: concurrency ${c}: ${rate.toFixed(2)} lines/s`);
    }
  }
  const best = [...probes].sort((a, b) => b[1] - a[1])[0] ?? [4, Number.NaN];
  let decideWall = Number.NaN;
  if (PARTS.has("throughput")) {
    note(`decides: ${LINES} lines at concurrency ${best[0]}`);
    const t = performance.now();
    await decideAll(s.edgeUrl(), client.secret, bodies, best[0]);
    decideWall = (performance.now() - t) / 1000;
  }
  const owner = await s.liveAccount(FUNDS);
  note(`batch: uploading ${LINES} lines`);
  const laBefore = la();
  const t = performance.now();
  const created = await uploadBatch(s.edgeUrl(), owner.secret, jsonl);
  const uploadS = (performance.now() - t) / 1000;
  let finished = false;
  // LATENCY_N live decides at the batch's start (a few % of its GPU time, in its wall time), so it runs alone after.
  const during = PARTS.has("latency")
    ? paced(s.edgeUrl(), live.secret, (n) => !finished && n < LATENCY_N + 1)
    : Promise.resolve([] as number[]);
  const done = await waitForBatch(s.edgeUrl(), owner.secret, created.id, 24 * 3_600_000, 1_000);
  const batchWall = (performance.now() - t) / 1000;
  finished = true;
  // One more than asked: the last may have run partly after the batch ended (then it is dropped).
  const duringMs = (await during).slice(0, LATENCY_N);
  const results = await batchResults(s.edgeUrl(), owner.secret, created.id);
  const problems = batchResultProblems({
    account: "batch",
    accountId: owner.accountId,
    id: created.id,
    customIds,
    status: done.status,
    counts: done.counts,
    charge: done.usage.charge_micro_cents,
    wallMs: batchWall * 1000,
    results,
  });
  note(`batch ${done.status} in ${batchWall.toFixed(0)} s; ${problems.length} problems`);

  say(
    `Lines: ${fmt(LINES)}${LINES === 10_000 ? "" : " (not the issue's 10,000: see below)"}, each a one-question check on a one-line state, every body \`"model": "${BATCH_BENCH_MODEL}"\`. Load average (1, 5, 15 min) at the batch's upload ${laBefore}, at its end ${la()}.`,
  );
  say("");
  if (PARTS.has("throughput")) {
    say("| client concurrency (decides, first " + `${PROBE_LINES} lines) | lines/s |`);
    say("| ---: | ---: |");
    for (const [c, r] of probes) say(`| ${c}${c === best[0] ? " (best)" : ""} | ${r.toFixed(2)} |`);
    say("");
    const dRate = LINES / decideWall;
    const bRate = LINES / batchWall;
    say("| the same lines | wall time | lines/s |");
    say("| --- | ---: | ---: |");
    say(`| decides, concurrency ${best[0]} | ${f1(decideWall)} s | ${dRate.toFixed(2)} |`);
    say(
      `| one batch, upload (${f1(uploadS)} s) to \`completed\` | ${f1(batchWall)} s | ${bRate.toFixed(2)} |`,
    );
    say(`| batch ÷ decides | | **${(bRate / dRate).toFixed(2)}** |`);
    say("");
    say(
      `Batch results: ${results.length} lines, ${done.counts.done} answered, ${done.counts.failed} failed; ` +
        (problems.length === 0 ? "custom ids in input order, each Decision id once." : problems.join("; ")),
    );
    say("");
  }
  if (PARTS.has("latency")) {
    say(
      `Live decide (the README's two questions, \`${BATCH_BENCH_MODEL}\`, another account, sequential, one every ~${PACE_MS} ms; ` +
        "those during the batch ran from its upload on, and their GPU time is in its wall time above):",
    );
    say("");
    say("| when | n | p50 | p95 |");
    say("| --- | ---: | ---: | ---: |");
    say(
      `| idle, before the batch | ${idle.length} | ${fmt(pct(idle, 0.5))} ms | ${fmt(pct(idle, 0.95))} ms |`,
    );
    say(
      `| while the batch ran | ${duringMs.length} | ${fmt(pct(duringMs, 0.5))} ms | ${fmt(pct(duringMs, 0.95))} ms |`,
    );
    say(
      `| during ÷ idle | | **${(pct(duringMs, 0.5) / pct(idle, 0.5)).toFixed(2)}** | ${(pct(duringMs, 0.95) / pct(idle, 0.95)).toFixed(2)} |`,
    );
    say("");
  }
}

/** ~1,000-byte lines (a state padded with ticket text), valid decides on svc-1.4.0. */
function bigLine(i: number): string {
  const filler = "The customer wrote again about the parcel and the refund; ".repeat(15);
  return `${JSON.stringify({
    custom_id: `big-${i}`,
    body: {
      model: BATCH_BENCH_MODEL,
      state: `Ticket ${i}. ${filler}`.slice(0, 900),
      questions: { refund: { type: "check", instructions: "Refund?" } },
    },
  })}\n`;
}

async function cancelAndDelete(s: BatchStack, secret: string, id: string): Promise<void> {
  const h = { authorization: `Bearer ${secret}` };
  await fetch(`${s.edgeUrl()}/v1/batches/${id}/cancel`, { method: "POST", headers: h }).then((r) => r.text());
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${s.edgeUrl()}/v1/batches/${id}`, { method: "DELETE", headers: h });
    await r.text();
    if (r.status === 200) return;
    await sleep(500);
  }
}

async function memory(s: BatchStack): Promise<void> {
  const acct = await s.liveAccount(FUNDS);
  const pid = workerdPid();
  const lineBytes = Buffer.byteLength(bigLine(0));
  say(
    `Upload of ${fmt(UPLOAD_LINES)} lines of ~${fmt(lineBytes)} bytes (${mb(UPLOAD_LINES * lineBytes)} MB) on a live key; workerd pid ${pid}, VmRSS every 100 ms; each batch cancelled and deleted after its 201.`,
  );
  say("");
  say("| upload | time | answer | RSS before | peak during | peak − before | after (3 s) |");
  say("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
  for (const how of ["chunked stream", "content-length"] as const) {
    await sleep(2_000);
    const before = rssBytes(pid);
    const sampler = sampleRss(pid);
    const t = performance.now();
    let body: ReadableStream<Uint8Array> | Buffer;
    if (how === "chunked stream") {
      let i = 0;
      const enc = new TextEncoder();
      body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (i >= UPLOAD_LINES) return c.close();
          let chunk = "";
          for (let k = 0; k < 256 && i < UPLOAD_LINES; k++) chunk += bigLine(i++);
          c.enqueue(enc.encode(chunk));
        },
      });
    } else {
      body = Buffer.from(Array.from({ length: UPLOAD_LINES }, (_, i) => bigLine(i)).join(""));
    }
    const res = await fetch(`${s.edgeUrl()}/v1/batches`, {
      method: "POST",
      headers: { authorization: `Bearer ${acct.secret}`, "content-type": "application/jsonl" },
      body,
      duplex: "half",
    });
    const json = (await res.json()) as { id?: string; counts?: { total: number }; error?: { code: string } };
    const secs = (performance.now() - t) / 1000;
    if (json.id) await cancelAndDelete(s, acct.secret, json.id);
    await sleep(3_000);
    const samples = sampler.stop();
    const peak = Math.max(...samples.map(([, b]) => b));
    const after = samples.at(-1)?.[1] ?? Number.NaN;
    const answer =
      res.status === 201 ? `201, ${fmt(json.counts?.total ?? 0)} lines` : `${res.status} ${json.error?.code}`;
    note(`memory: ${how}: ${answer} in ${secs.toFixed(1)} s, peak ${mb(peak)} MB`);
    say(
      `| ${how} | ${f1(secs)} s | ${answer} | ${mb(before)} MB | ${mb(peak)} MB | **${mb(peak - before)} MB** | ${mb(after)} MB |`,
    );
  }
  say("");
}

async function waitDone(s: BatchStack, secret: string, id: string, target: number): Promise<void> {
  for (;;) {
    const b = await getBatch(s.edgeUrl(), secret, id).catch(() => undefined);
    if (b && (b.counts.done + b.counts.failed >= target || FINISHED.has(b.status))) return;
    await sleep(500);
  }
}

async function crash(s: BatchStack): Promise<boolean> {
  const FUNDS_CRASH = 5 * 100_000_000;
  const acct = await s.liveAccount(FUNDS_CRASH);
  const { jsonl, customIds } = ticketLines(CRASH_LINES, BATCH_BENCH_MODEL, "crash");
  const created = await uploadBatch(s.edgeUrl(), acct.secret, jsonl);
  const tc = Date.now();
  const log: string[] = [];
  const step = (m: string) => {
    log.push(`- ${((Date.now() - tc) / 1000).toFixed(1)} s: ${m}`);
    note(`crash: ${m}`);
  };
  step(`batch ${created.id} of ${CRASH_LINES} lines uploaded`);
  const at = (f: number) => Math.floor(CRASH_LINES * f);
  await waitDone(s, acct.secret, created.id, at(0.25));
  s.killGpu();
  step(`${at(0.25)}+ lines done; GPU worker killed (SIGKILL) with lines in flight`);
  await sleep(3_000);
  await s.startGpu();
  step("GPU worker started again (same port)");
  await waitDone(s, acct.secret, created.id, at(0.5));
  await s.stopRedis();
  step(`${at(0.5)}+ lines done; Redis stopped (its memory lost)`);
  await sleep(3_000);
  await s.startRedis();
  step("Redis started again, empty");
  await waitDone(s, acct.secret, created.id, at(0.75));
  await s.restartEdge();
  step(
    `${at(0.75)}+ lines done; edge stopped and started again on its persisted Durable Objects and R2 (alarms gone; a read kicks the runner)`,
  );
  const done = await waitForBatch(s.edgeUrl(), acct.secret, created.id, 3_600_000, 1_000);
  step(`batch ${done.status}: ${JSON.stringify(done.counts)}`);
  const results: BatchLineResult[] = await batchResults(s.edgeUrl(), acct.secret, created.id);
  const batch: SoakBatch = {
    account: "crash",
    accountId: acct.accountId,
    id: created.id,
    customIds,
    status: done.status,
    counts: done.counts,
    charge: done.usage.charge_micro_cents,
    wallMs: Date.now() - tc,
    results,
  };
  const problems = batchResultProblems(batch);
  const sum = results.filter((r) => r.status === 200).reduce((a, r) => a + r.charge, 0);
  const balance = (await (
    await fetch(`${s.edgeUrl()}/v1/balance`, { headers: { authorization: `Bearer ${acct.secret}` } })
  ).json()) as { balance_micro_cents: number };
  await sleep(2_000); // the ledger writes its journal to Postgres behind its answers
  const pg = await s.query(async (q) => {
    const j = await q(
      `SELECT count(*) FILTER (WHERE kind = 'debit')::int AS debits, count(*) FILTER (WHERE kind = 'refund')::int AS refunds,
              COALESCE(SUM(CASE kind WHEN 'debit' THEN -amount_micro_cents WHEN 'refund' THEN amount_micro_cents ELSE 0 END), 0)::text AS net
         FROM ledger_journal WHERE account_id = $1`,
      [acct.accountId],
    );
    const u = await q(
      `SELECT count(*)::int AS n, count(DISTINCT request_id)::int AS ids, COALESCE(sum(charge_micro_cents), 0)::text AS charged
         FROM usage_events WHERE account_id = $1 AND client_name = '(batch)'`,
      [acct.accountId],
    );
    const row = (r: { rows: Array<Record<string, unknown>> }) =>
      Object.fromEntries(Object.entries(r.rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
    return { journal: row(j), usage: row(u) };
  });
  const checks: Array<[string, boolean, string]> = [
    [
      "every line answered once: results = custom ids in input order, Decision ids unique",
      problems.length === 0 && done.counts.done === CRASH_LINES,
      problems.length
        ? problems.join("; ")
        : `${results.length} results, ${done.counts.done} answered, ${done.counts.failed} failed`,
    ],
    [
      "balance moved by exactly Σ the results' charges (GET /v1/balance)",
      balance.balance_micro_cents === FUNDS_CRASH - sum,
      `${fmt(FUNDS_CRASH)} − ${fmt(sum)} = ${fmt(FUNDS_CRASH - sum)}; balance ${fmt(balance.balance_micro_cents)}`,
    ],
    [
      "ledger journal in Postgres: debits − refunds = Σ charges",
      pg.journal.net === -sum,
      `${pg.journal.debits} debits, ${pg.journal.refunds} refunds (attempts cut by a fault), net ${fmt(-(pg.journal.net ?? 0))}`,
    ],
    [
      "usage: one `(batch)` event per line, the same charges",
      pg.usage.n === CRASH_LINES && pg.usage.ids === CRASH_LINES && pg.usage.charged === sum,
      `${pg.usage.n} events, ${pg.usage.ids} request ids, ${fmt(pg.usage.charged ?? 0)} micro-cents`,
    ],
  ];
  say(`${CRASH_LINES} lines on a live key, wall time ${f1(batch.wallMs / 1000)} s:`);
  say("");
  for (const l of log) say(l);
  say("");
  say("| check | result | observed |");
  say("| --- | --- | --- |");
  for (const [c, ok, obs] of checks) say(`| ${c} | ${ok ? "pass" : "**FAIL**"} | ${obs} |`);
  say("");
  return checks.every(([, ok]) => ok);
}

async function main(): Promise<void> {
  const commit = execSync("git rev-parse --short HEAD").toString().trim();
  const started = new Date().toISOString().slice(0, 16).replace("T", " ");
  const laStart = la();
  const s = await startBatchStack(note);
  let ok = true;
  const sections: string[] = [];
  const part = async (title: string, run: () => Promise<unknown>) => {
    out.length = 0;
    const r = await run();
    if (r === false) ok = false;
    sections.push(`#### ${title}\n\n${out.join("\n")}`);
  };
  try {
    if (PARTS.has("throughput") || PARTS.has("latency"))
      await part("Throughput, and a live decide while a batch runs", () => throughputAndLatency(s));
    if (PARTS.has("memory")) await part("The Worker's memory during a 100 MB upload", () => memory(s));
    if (PARTS.has("crash"))
      await part("Crash-safety on the real model (GPU worker killed, Redis restarted, edge restarted)", () =>
        crash(s),
      );
  } finally {
    await s.stop();
  }
  const head = "## Batches (`npm run bench:batch`, issue 42)";
  const section =
    `### Run ${started} UTC (commit ${commit}, ${cpus().length} × ${cpus()[0]?.model.trim()}, shared; GPU worker ` +
    `on CPU, 2 lanes × 1 thread, ${BATCH_BENCH_MODEL}; load average ${laStart} at the start, ${la()} at the end; ` +
    `${((Date.now() - t0) / 60_000).toFixed(0)} min)\n\n${sections.join("\n")}`;
  console.log(`\n${section}`);
  if (process.env.BATCH_WRITE !== "0") {
    prependToBenchmarks(head, section);
  }
  if (!ok) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
