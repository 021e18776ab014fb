import { ERRORS } from "../schema/errors";
import type { QueryFn } from "../scripts/migrations";
import { withNodeClient } from "../scripts/stack/neon-node";
import { BATCH_CLIENT_NAME } from "../workers/batches/runner";
import type { JournalRow } from "../workers/ledger/types";
import type { SoakAccount } from "./accounts";
import { batchResultProblems, type SoakBatch } from "./batch-scenario";
import { send } from "./client";
import type { Outcome } from "./traffic";

export interface AccountCheck {
  name: string;
  accountId: string;
  opening: number;
  credits: number;
  charged: number;
  expected: number;
  ledgerBalance: number;
  postgresBalance: number;
  answers200: number;
  replays: number;
  /** Batch lines answered (200) and their charges, in `charged` too. */
  batchLines: number;
  batchCharged: number;
}

export interface CheckResult {
  ok: boolean;
  failures: string[];
  /**
   * Usage events missing for answers (not money: the ledger and the journal are checked apart). Reported, not
   * failed: on the local stack PGlite serves every connection through one multiplexed session, and under load
   * it has been seen to drop a few statements at one instant (docs/reliability.md, section 4).
   */
  warnings: string[];
  accounts: AccountCheck[];
  journalRows: number;
  usageEvents: number;
  rollupGroups: number;
}

interface LedgerView {
  balance_micro_cents: number;
  journal: JournalRow[];
}

const MAX_FAILURES_LISTED = 40;

/** Reads the ledger after applying pending refund intents and flushing its journal to Postgres. */
async function readLedger(baseUrl: string, adminToken: string, accountId: string): Promise<LedgerView> {
  const res = await send(`${baseUrl}/__soak/ledger/${accountId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (res.status !== 200) throw new Error(`ledger read ${accountId}: ${res.status} ${res.text}`);
  return res.json as LedgerView;
}

/** Credits from Stripe land when its webhook arrives: reads the ledger until every counted credit is in it. */
async function readSettledLedger(
  baseUrl: string,
  adminToken: string,
  account: SoakAccount,
): Promise<{ ledger: LedgerView; missing: string[] }> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ledger = await readLedger(baseUrl, adminToken, account.accountId);
    const refs = new Set(ledger.journal.filter((r) => r.kind === "credit").map((r) => r.ref));
    const missing = account.credits
      .filter((c) => c.status === 200 && !refs.has(c.paymentId))
      .map((c) => c.paymentId);
    if (missing.length === 0 || Date.now() > deadline) return { ledger, missing };
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Usage events are written after the answer (waitUntil): waits until their count stops moving. */
async function settledEventCount(q: QueryFn, ids: string[], expected: number): Promise<number> {
  let last = -1;
  let stable = 0;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await q("SELECT count(*)::int AS n FROM usage_events WHERE account_id = ANY($1)", [ids]);
    const n = Number(rows[0]?.n ?? 0);
    if (n >= expected || Date.now() > deadline) return n;
    stable = n === last ? stable + 1 : 0;
    if (stable >= 10) return n;
    last = n;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The accounting, checked after the run (issue 19): per account, balance = opening + credits − Σ
 * `charge_micro_cents` over 200 answers that were not replays; the ledger's journal equals Postgres; no request
 * id charged twice (net of refunds: exactly the 200 originals); every answer is a decision or an error of the
 * catalogue with its status and type; the usage roll-ups equal the sums of the events.
 */
export async function checkAccounting(opts: {
  baseUrl: string;
  adminToken: string;
  databaseUrl: string;
  neonWsProxy: string;
  accounts: SoakAccount[];
  outcomes: Outcome[];
  /** Batches uploaded during the run: their answered lines are charges like decides' 200 originals. */
  batches?: SoakBatch[];
}): Promise<CheckResult> {
  const failures: string[] = [];
  const fail = (m: string) => failures.push(m);
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);

  // Every answer: a decision, or an error whose status and type are the catalogue's for its code.
  for (const o of opts.outcomes) {
    if (o.status === 200) {
      if (o.raw !== undefined || !o.id || !Number.isSafeInteger(o.charge))
        fail(`#${o.seq}: 200 without a decision (${o.raw ?? ""})`);
      continue;
    }
    const spec = o.code ? ERRORS[o.code as keyof typeof ERRORS] : undefined;
    if (!spec)
      fail(`#${o.seq}: status ${o.status} code ${o.code ?? "none"} not in the catalogue ${o.raw ?? ""}`);
    else if (spec.status !== o.status || spec.type !== o.type)
      fail(`#${o.seq}: ${o.code} answered ${o.status}/${o.type}, catalogue ${spec.status}/${spec.type}`);
  }

  // No request id charged twice by the answers themselves.
  const originals = opts.outcomes.filter((o) => o.status === 200 && !o.replayed);
  const seen = new Map<string, Outcome>();
  for (const o of originals) {
    if (o.id && seen.has(o.id)) fail(`request id ${o.id} answered as an original twice`);
    if (o.id) seen.set(o.id, o);
  }

  // A replay names its original (same idempotency key) and repeats its charge; it charges nothing itself.
  for (const o of opts.outcomes) {
    if (o.status !== 200 || !o.replayed) continue;
    const original = o.id ? seen.get(o.id) : undefined;
    if (!original || original.idempotencyKey !== o.idempotencyKey || original.charge !== o.charge)
      fail(`#${o.seq}: replay ${o.id ?? "?"} does not match an original of its idempotency key`);
  }

  // Batch lines: every custom id answered once, in order; each answered line is a charge of its own.
  const batches = opts.batches ?? [];
  for (const b of batches) for (const p of batchResultProblems(b)) fail(p);
  const batchLines = new Map<string, { accountId: string; status: number; charge: number }>();
  for (const b of batches)
    for (const r of b.results) {
      if (!r.id) continue;
      if (seen.has(r.id) || batchLines.has(r.id))
        fail(`batch line ${r.customId}: request id ${r.id} answered twice`);
      batchLines.set(r.id, { accountId: b.accountId, status: r.status, charge: r.charge });
    }

  const ids = opts.accounts.map((a) => a.accountId);
  const accounts: AccountCheck[] = [];
  let journalRows = 0;
  let usageEvents = 0;
  let rollupGroups = 0;
  await withNodeClient(opts.databaseUrl, { wsProxy: opts.neonWsProxy }, async (q) => {
    for (const a of opts.accounts) {
      const { ledger, missing } = await readSettledLedger(opts.baseUrl, opts.adminToken, a);
      for (const m of missing) fail(`${a.name}: credit ${m} never reached the ledger`);
      const creditRows = ledger.journal.filter((r) => r.kind === "credit");
      for (const r of creditRows) {
        const made = a.credits.find((c) => c.paymentId === r.ref && c.status === 200);
        if (!made) fail(`${a.name}: journal credit ${r.ref} the harness did not make`);
        else if (made.amount !== r.amount_micro_cents)
          fail(`${a.name}: credit ${r.ref} of ${r.amount_micro_cents}, paid ${made.amount}`);
      }
      for (const c of a.credits)
        if (c.status !== 200) fail(`${a.name}: credit ${c.paymentId} answered ${c.status}`);
      const credits = a.credits
        .filter((c) => c.status === 200 && !c.duplicate)
        .reduce((s, c) => s + c.amount, 0);
      const mine = originals.filter((o) => o.accountId === a.accountId);
      const myLines = [...batchLines.values()].filter((l) => l.accountId === a.accountId && l.status === 200);
      const batchCharged = myLines.reduce((s, l) => s + l.charge, 0);
      const charged = mine.reduce((s, o) => s + o.charge, 0) + batchCharged;
      const expected = credits - charged;

      // The ledger's journal, net of refunds: exactly the 200 originals, each with its charge.
      const net = new Map<string, number>();
      const debits = new Map<string, number>();
      for (const r of ledger.journal) {
        if (r.kind === "debit") {
          debits.set(r.ref, r.amount_micro_cents);
          net.set(r.ref, (net.get(r.ref) ?? 0) + 1);
        } else if (r.kind === "refund") net.set(r.ref, (net.get(r.ref) ?? 0) - 1);
      }
      for (const [ref, n] of net) {
        if (n < 0 || n > 1) fail(`${a.name}: request ${ref} is in the journal ${n} times net`);
        const answer = seen.get(ref);
        if (answer?.mode === "test") continue;
        const line = batchLines.get(ref);
        if (line) {
          if (line.status === 200 && n !== 1)
            fail(`${a.name}: batch line ${ref} answered but ${n} debits net`);
          if (line.status !== 200 && n !== 0) fail(`${a.name}: batch line ${ref} failed but ${n} debits net`);
          if (n === 1 && line.charge !== debits.get(ref))
            fail(`${a.name}: batch line ${ref} answered charge ${line.charge}, journal ${debits.get(ref)}`);
          continue;
        }
        if (n === 1 && !answer)
          fail(`${a.name}: request ${ref} charged ${debits.get(ref)} without a 200 answer`);
        if (n === 0 && answer) fail(`${a.name}: request ${ref} answered 200 but its charge was refunded`);
        if (n === 1 && answer && answer.charge !== debits.get(ref))
          fail(`${a.name}: request ${ref} answered charge ${answer.charge}, journal ${debits.get(ref)}`);
      }
      // Test keys cost 0 and never touch the ledger.
      for (const o of mine) {
        if (!o.id) continue;
        if (o.mode === "test" && (o.charge !== 0 || net.has(o.id)))
          fail(`${a.name}: test-key answer ${o.id} charged`);
        if (o.mode === "live" && net.get(o.id) !== 1)
          fail(`${a.name}: 200 answer ${o.id} has no standing debit in the journal`);
      }
      for (const [id, l] of batchLines)
        if (l.accountId === a.accountId && l.status === 200 && net.get(id) !== 1)
          fail(`${a.name}: batch line ${id} has no standing debit in the journal`);

      // The journal in Postgres equals the ledger's.
      const pg = await q(
        `SELECT kind, ref, account_id, amount_micro_cents::text AS amount, tokens::text AS tokens,
                allowance_tokens::text AS allowance, test, (extract(epoch FROM at) * 1000)::bigint::text AS at
         FROM ledger_journal WHERE account_id = $1`,
        [a.accountId],
      );
      const rowKey = (r: {
        kind: unknown;
        ref: unknown;
        amount: unknown;
        tokens: unknown;
        allowance: unknown;
        test: unknown;
        at: unknown;
      }) => [r.kind, r.ref, r.amount, r.tokens, r.allowance, r.test ? 1 : 0, r.at].join("|");
      const doRows = new Set(
        ledger.journal.map((r) =>
          rowKey({
            kind: r.kind,
            ref: r.ref,
            amount: r.amount_micro_cents,
            tokens: r.tokens,
            allowance: r.allowance_tokens,
            test: r.test === 1,
            at: r.at,
          }),
        ),
      );
      const pgRows = new Set(pg.rows.map((r) => rowKey(r as Parameters<typeof rowKey>[0])));
      journalRows += doRows.size;
      if (pgRows.size !== pg.rows.length) fail(`${a.name}: Postgres journal repeats a row`);
      for (const k of doRows) if (!pgRows.has(k)) fail(`${a.name}: journal row missing in Postgres: ${k}`);
      for (const k of pgRows)
        if (!doRows.has(k)) fail(`${a.name}: Postgres row not in the ledger's journal: ${k}`);
      const pgBal = await q(
        `SELECT COALESCE(SUM(CASE kind WHEN 'debit' THEN -amount_micro_cents ELSE amount_micro_cents END), 0)::text AS b
         FROM ledger_journal WHERE account_id = $1`,
        [a.accountId],
      );
      const postgresBalance = Number(pgBal.rows[0]?.b ?? Number.NaN);

      if (ledger.balance_micro_cents !== expected)
        fail(
          `${a.name}: balance ${ledger.balance_micro_cents}, expected ${expected} (credits ${credits} − charged ${charged})`,
        );
      if (postgresBalance !== expected)
        fail(`${a.name}: Postgres journal balance ${postgresBalance}, expected ${expected}`);
      accounts.push({
        name: a.name,
        accountId: a.accountId,
        opening: 0,
        credits,
        charged,
        expected,
        ledgerBalance: ledger.balance_micro_cents,
        postgresBalance,
        answers200: opts.outcomes.filter((o) => o.accountId === a.accountId && o.status === 200).length,
        replays: opts.outcomes.filter((o) => o.accountId === a.accountId && o.status === 200 && o.replayed)
          .length,
        batchLines: myLines.length,
        batchCharged,
      });
    }

    // Usage: one event per answer, the originals' charges in them, the roll-ups equal to the events' sums.
    // An answer refused at authentication (401, or 503 `maintenance` when the key store is unreachable) knows no
    // key, so it has no usage event; every other answer has exactly one.
    const refusedAtAuth = (o: Outcome) => o.status === 401 || o.code === "maintenance";
    const expectEvents = opts.outcomes.filter((o) => !refusedAtAuth(o));
    // A batch line's event (client `(batch)`) is written by its runner before the line is counted.
    usageEvents = await settledEventCount(q, ids, expectEvents.length + batchLines.size);
    const recorded = await q("SELECT request_id, client_name FROM usage_events WHERE account_id = ANY($1)", [
      ids,
    ]);
    const have = new Set(recorded.rows.map((r) => String(r.request_id)));
    const fromBatches = new Set(
      recorded.rows.filter((r) => r.client_name === BATCH_CLIENT_NAME).map((r) => String(r.request_id)),
    );
    if (usageEvents !== expectEvents.length + batchLines.size)
      warn(
        `usage events: ${usageEvents} recorded for ${expectEvents.length} authenticated answers and ${batchLines.size} batch lines`,
      );
    for (const id of batchLines.keys())
      if (!fromBatches.has(id)) fail(`batch line ${id}: no usage event under ${BATCH_CLIENT_NAME}`);
    if (fromBatches.size !== batchLines.size)
      fail(`${fromBatches.size} ${BATCH_CLIENT_NAME} usage events for ${batchLines.size} batch lines`);
    for (const o of expectEvents)
      if (!o.requestId || !have.has(o.requestId))
        warn(
          `no usage event for #${o.seq} ${o.requestId ?? "(no x-request-id)"}: ${o.status} ${o.code ?? ""} ` +
            `${o.mode} ${o.scenario} during [${o.faults.join(", ")}] at ${new Date(o.startedAt).toISOString()}`,
        );
    const charged = await q(
      `SELECT request_id, charge_micro_cents::text AS charge FROM usage_events
       WHERE account_id = ANY($1) AND status = 200 AND NOT replayed`,
      [ids],
    );
    const eventCharge = new Map(charged.rows.map((r) => [String(r.request_id), Number(r.charge)]));
    for (const o of originals)
      if (o.id && eventCharge.has(o.id) && eventCharge.get(o.id) !== o.charge)
        fail(`usage event ${o.id}: charge ${eventCharge.get(o.id)}, answered ${o.charge}`);
    for (const [id, l] of batchLines)
      if (l.status === 200 && eventCharge.get(id) !== l.charge)
        fail(`batch usage event ${id}: charge ${eventCharge.get(id)}, answered ${l.charge}`);
    for (const [bucket, table] of [
      ["hour", "usage_hourly"],
      ["day", "usage_daily"],
    ] as const) {
      const bucketOf = bucket === "hour" ? "r.hour" : "date_trunc('day', r.hour, 'UTC')";
      const sums = `sum(requests)::text, sum(input_tokens)::text, sum(charge_micro_cents)::text, sum(gpu_requests)::text,
        sum(fallback_requests)::text, sum(error_requests)::text, sum(replays)::text`;
      const fromEvents = await q(
        `SELECT r.account_id, ${bucketOf} AS b, r.key_id, r.model, r.served_by, ${sums.replaceAll("sum(", "sum(r.")}
         FROM usage_events e, LATERAL usage_rollup_of(e) r WHERE e.account_id = ANY($1)
         GROUP BY 1, 2, 3, 4, 5`,
        [ids],
      );
      const fromRollups = await q(
        `SELECT account_id, ${bucket} AS b, key_id, model, served_by, ${sums}
         FROM ${table} WHERE account_id = ANY($1) GROUP BY 1, 2, 3, 4, 5`,
        [ids],
      );
      const asSet = (rows: Array<Record<string, unknown>>) =>
        new Set(
          rows.map((r) =>
            JSON.stringify(Object.values(r).map((v) => (v instanceof Date ? v.toISOString() : v))),
          ),
        );
      const ev = asSet(fromEvents.rows);
      const ro = asSet(fromRollups.rows);
      rollupGroups += ro.size;
      for (const k of ev) if (!ro.has(k)) fail(`${table}: events sum ${k} not in the roll-up`);
      for (const k of ro) if (!ev.has(k)) fail(`${table}: roll-up ${k} not the events' sum`);
    }
  });

  const listed = failures.slice(0, MAX_FAILURES_LISTED);
  if (failures.length > listed.length) listed.push(`… and ${failures.length - listed.length} more`);
  return {
    ok: failures.length === 0,
    failures: listed,
    warnings: warnings.slice(0, MAX_FAILURES_LISTED),
    accounts,
    journalRows,
    usageEvents,
    rollupGroups,
  };
}
