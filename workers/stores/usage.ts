import { logEvent } from "../observability/log";
import { type DbEnv, getSql } from "./db";
import { identifyTallies, QUESTION_TALLY_CTES, type QuestionTally } from "./question-tallies";
import { addCounts, conflictKey, DAILY, dayOf, HOURLY, sumCounts } from "./usage-rollup-sql";

/** One decide call as reported by the usage routes (errors included; never content). */
export interface UsageEvent {
  request_id: string;
  account_id: string;
  key_id: string;
  mode: "live" | "test";
  model: string | null;
  served_by: "gpu" | "fallback" | null;
  input_tokens: number;
  state_tokens: number;
  question_tokens: number;
  charge_micro_cents: number;
  unit_price_micro_cents: number;
  tier: string | null;
  status: number;
  error_code: string | null;
  replayed: boolean;
  /** ms since epoch */
  at: number;
  /** The caller's `x-client-request-id`, and the client named by `user-agent` (spec: request metadata). */
  client_request_id: string | null;
  client_name: string | null;
  client_version: string | null;
  /** A successful decide's answers, one tally per question (issue 52); absent or null: none to add. */
  questions?: QuestionTally[] | null;
}

const EVENT_COLUMNS = [
  "request_id",
  "account_id",
  "key_id",
  "mode",
  "model",
  "served_by",
  "input_tokens",
  "state_tokens",
  "question_tokens",
  "charge_micro_cents",
  "unit_price_micro_cents",
  "tier",
  "status",
  "error_code",
  "replayed",
  "created_at",
  "client_request_id",
  "client_name",
  "client_version",
].join(", ");

// One statement for a batch of events, given as one JSON array. The insert returns only the rows whose request
// id is new; the roll-ups add exactly those, grouped by roll-up row first (one statement may not update a row
// twice), so a repeated or concurrent write of an event adds nothing (migrations/0004: usage_rollup_of).
const INSERT_AND_ROLL_UP = `
  WITH ins AS (
    INSERT INTO usage_events (${EVENT_COLUMNS})
    SELECT ${EVENT_COLUMNS} FROM jsonb_populate_recordset(NULL::usage_events, $1::jsonb)
    ON CONFLICT (request_id) DO NOTHING
    RETURNING *
  ), r AS (
    SELECT r.account_id, r.hour, r.key_id, r.model, r.served_by, ${sumCounts}
      FROM ins, LATERAL usage_rollup_of(ROW(ins.*)::usage_events) r
     GROUP BY 1, 2, 3, 4, 5
  ), up AS (
    INSERT INTO usage_hourly SELECT * FROM r
    ON CONFLICT ${conflictKey(HOURLY)} DO UPDATE SET ${addCounts(HOURLY)}
  ), up_day AS (
    INSERT INTO usage_daily
    SELECT r.account_id, ${dayOf("r.hour")}, r.key_id, r.model, r.served_by, ${sumCounts}
      FROM r
     GROUP BY 1, 2, 3, 4, 5
    ON CONFLICT ${conflictKey(DAILY)} DO UPDATE SET ${addCounts(DAILY)}
  )${QUESTION_TALLY_CTES}
  SELECT count(*)::int AS added FROM ins`;

/**
 * Inserts each event once and adds it to its hourly and daily roll-ups and its questions' aggregates, all in one
 * statement; answers how many events were new (a retried or concurrent write of the same request id is a no-op).
 */
export async function recordUsageEvents(env: DbEnv, events: UsageEvent[]): Promise<number> {
  await identifyTallies(events.flatMap((e) => e.questions ?? []));
  const rows = events.map(({ at, questions: _, ...columns }) => ({
    ...columns,
    created_at: new Date(at).toISOString(),
  }));
  // The tallies ride apart ($2, only events that carry some), so each JSON is parsed once, by its own reader.
  const tallies = events.flatMap((e) =>
    e.questions && e.questions.length > 0 ? [{ request_id: e.request_id, questions: e.questions }] : [],
  );
  const result = (await getSql(env).query(INSERT_AND_ROLL_UP, [
    JSON.stringify(rows),
    JSON.stringify(tallies),
  ])) as Array<{ added: number }>;
  return result[0]?.added ?? 0;
}

/** One event: true when it was new. */
export async function recordUsageEvent(env: DbEnv, e: UsageEvent): Promise<boolean> {
  return (await recordUsageEvents(env, [e])) === 1;
}

/** Where usage events go; a no-op where no database is configured. */
export interface UsageLog {
  record(e: UsageEvent): Promise<void>;
}

// Backoff before each retry of a write that never reached the database (a lost connection, a bridge hiccup).
const RETRY_DELAYS_MS = [50, 250];

/** How long events wait for company before their batch is written, and the most one batch holds. */
export const USAGE_BATCH = { windowMs: 200, maxEvents: 100 };

/**
 * The usage log of an env (one per isolate): events recorded within `windowMs` of each other are written in one
 * statement, so Postgres sees one round trip per batch instead of one per request; `record` resolves when the
 * event's batch has landed (the caller hands it to `waitUntil`). A write that failed on the way (an error without
 * a SQLSTATE `code`) is retried: the write is idempotent by request id and the roll-ups count each event once, so
 * a retry can never double count. A batch the database refuses is written again event by event, so one bad event
 * cannot take the others with it. Events that could not be written are logged here, once, by the writer.
 *
 * The write runs in the request that closes the batch: the one whose event fills it, or the one that opened it,
 * when its window timer fires. A batch never waits on another request's promise to start writing: workerd may
 * cancel continuations resolved from another request's context (a full batch was lost that way; see
 * docs/decisions.md, "Who writes").
 */
export function usageLog(env: DbEnv, batching = USAGE_BATCH): UsageLog {
  if (!env.DATABASE_URL) return { record: async () => {} };
  const write = (events: UsageEvent[]) => withRetries(() => recordUsageEvents(env, events));
  /** Each event's error, or null once it landed. */
  const writeBatch = async (events: UsageEvent[]): Promise<unknown[]> => {
    try {
      await write(events);
      return events.map(() => null);
    } catch (error) {
      if (events.length === 1 || !hasSqlState(error)) return events.map(() => error);
      const each = await Promise.allSettled(events.map((e) => write([e])));
      return each.map((r) => (r.status === "rejected" ? r.reason : null));
    }
  };
  const logFailures = (errors: unknown[]) => {
    const failed = errors.filter((e) => e !== null);
    if (failed.length > 0)
      logEvent("error", "usage_events_not_written", { count: failed.length, error: messageOf(failed[0]) });
    return errors;
  };
  interface Batch {
    events: UsageEvent[];
    written: boolean;
    timer: ReturnType<typeof setTimeout>;
    /** Settles with each event's error once the batch's writer is done. */
    outcome: Promise<unknown[]>;
    settle: (errors: Promise<unknown[]>) => void;
  }
  let open: Batch | null = null;
  const writeNow = (batch: Batch): Promise<unknown[]> => {
    if (open === batch) open = null;
    batch.written = true;
    const errors = writeBatch(batch.events).then(logFailures);
    batch.settle(errors);
    clearTimeout(batch.timer);
    return errors;
  };
  const openBatch = (): Batch => {
    let settle!: Batch["settle"];
    const outcome = new Promise<unknown[]>((resolve) => {
      settle = resolve;
    });
    const batch: Batch = { events: [], written: false, outcome, settle, timer: undefined as never };
    batch.timer = setTimeout(() => {
      if (!batch.written) void writeNow(batch);
    }, batching.windowMs);
    return batch;
  };
  return {
    async record(e) {
      open ??= openBatch();
      const batch = open;
      const index = batch.events.push(e) - 1;
      const outcome = batch.events.length >= batching.maxEvents ? writeNow(batch) : batch.outcome;
      const error = (await outcome)[index];
      if (error !== null) throw error;
    },
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = RETRY_DELAYS_MS[n];
      if (delay === undefined || hasSqlState(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

const hasSqlState = (error: unknown) => typeof (error as { code?: unknown })?.code === "string";
