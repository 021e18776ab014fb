import { credit, RUN_ID, type SoakAccount } from "./accounts";
import { send } from "./client";

/** One answered request, as the checker and the report read it. */
export interface Outcome {
  seq: number;
  scenario: ScenarioKind;
  account: string;
  accountId: string;
  mode: "live" | "test";
  idempotencyKey?: string;
  fallback?: "allow" | "never";
  status: number;
  /** `error.type` / `error.code` of an error answer. */
  type?: string;
  code?: string;
  /** `x-request-id`: this call's id (for a replay, the replay's own). */
  requestId?: string;
  /** The decision's `id` (a replay carries the original's). */
  id?: string;
  replayed: boolean;
  charge: number;
  servedBy?: string;
  /** Wall-clock start (ms) and latency. */
  startedAt: number;
  ms: number;
  /** The faults active when the request was sent. */
  faults: string[];
  /** Body kept only when the answer is malformed (for the report). */
  raw?: string;
}

export type ScenarioKind = "single" | "retry" | "concurrent" | "reused" | "invalid" | "burst";

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const QUESTIONS = {
  check: { type: "check", instructions: "Is the order late?" },
  pick: { type: "pick", instructions: "Which team?", options: { billing: null, shipping: null } },
  rate: { type: "rate", instructions: "How urgent?", levels: ["low", "medium", "high"] },
} as const;
type QuestionType = keyof typeof QUESTIONS;
const TYPES: QuestionType[] = ["check", "pick", "rate"];
const NOTES = ["The parcel is late.", "I was charged twice.", "Thanks, all good.", "Where is order 7?"];

interface Request {
  account: SoakAccount;
  mode: "live" | "test";
  secret: string;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  fallback?: "allow" | "never";
}

export interface TrafficOptions {
  baseUrl: string;
  adminToken: string;
  accounts: SoakAccount[];
  /** Total requests (decide calls) to send. */
  requests: number;
  /** Clients sending at once. */
  concurrency: number;
  seed: number;
  /** Names of the faults active now (stamped on each outcome). */
  activeFaults(): string[];
  /** Called with the count of requests handed out so far, before each scenario; may wait (fault gates). */
  gate(issued: number): Promise<void>;
  /** Top-ups of the `poor` account during the run: every `topUpEvery` requests (one sent twice). */
  topUpEvery: number;
  /** More credits during the run: each runs once, when `at` of the requests were handed out. */
  credits?: Array<{ at: number; run: () => Promise<void> }>;
  progress?(done: number): void;
}

/** Drives `requests` decide calls through `concurrency` clients; resolves with every outcome. */
export async function runTraffic(opts: TrafficOptions): Promise<Outcome[]> {
  const rand = prng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const outcomes: Outcome[] = [];
  const byName = new Map(opts.accounts.map((a) => [a.name, a]));
  let issued = 0;
  let seq = 0;
  let topUps = 0;
  let nextTopUp = opts.topUpEvery;

  const newRequest = (accountName?: string, forceMode?: "live" | "test"): Request => {
    const account =
      (accountName && byName.get(accountName)) ||
      pick(
        rand() < 0.5
          ? opts.accounts
          : [byName.get("rich"), byName.get("team"), byName.get("poor"), byName.get("limited")].filter(
              (a): a is SoakAccount => !!a,
            ),
      );
    const mode = forceMode ?? (account.test.length > 0 && rand() < 0.35 ? "test" : "live");
    const secret = pick(mode === "live" ? account.live : account.test);
    const kinds = rand() < 0.1 ? TYPES : [pick(TYPES)];
    const questions = Object.fromEntries(kinds.map((t) => [t.slice(0, 1), QUESTIONS[t]]));
    const body: Record<string, unknown> = {
      state: `Ticket ${Math.floor(rand() * 50)}: ${pick(NOTES)}`,
      questions,
    };
    const f = rand();
    const fallback = f < 0.3 ? "never" : f < 0.5 ? "allow" : undefined;
    if (fallback) body.fallback = fallback;
    return { account, mode, secret, body, fallback };
  };

  const decide = async (scenario: ScenarioKind, r: Request): Promise<Outcome> => {
    const faults = opts.activeFaults();
    const headers: Record<string, string> = {
      authorization: `Bearer ${r.secret}`,
      "content-type": "application/json",
    };
    if (r.idempotencyKey) headers["idempotency-key"] = r.idempotencyKey;
    const res = await send(`${opts.baseUrl}/v1/decide`, {
      method: "POST",
      headers,
      body: JSON.stringify(r.body),
    });
    const json = (res.json ?? {}) as {
      id?: string;
      object?: string;
      served_by?: string;
      usage?: { charge_micro_cents?: number };
      error?: { type?: string; code?: string };
    };
    const outcome: Outcome = {
      seq: seq++,
      scenario,
      account: r.account.name,
      accountId: r.account.accountId,
      mode: r.mode,
      idempotencyKey: r.idempotencyKey,
      fallback: r.fallback,
      status: res.status,
      type: json.error?.type,
      code: json.error?.code,
      requestId: res.headers["x-request-id"],
      id: res.status === 200 ? json.id : undefined,
      replayed: res.headers["idempotent-replayed"] === "true",
      charge: res.status === 200 ? (json.usage?.charge_micro_cents ?? Number.NaN) : 0,
      servedBy: json.served_by,
      startedAt: res.startedAt,
      ms: res.ms,
      faults,
    };
    const wellFormed = res.status === 200 ? json.object === "decision" : !!json.error?.code;
    if (!wellFormed) outcome.raw = res.text.slice(0, 500);
    outcomes.push(outcome);
    opts.progress?.(outcomes.length);
    return outcome;
  };

  const scenario = async (n: number): Promise<void> => {
    const room = opts.requests - issued;
    const roll = rand();
    const idem = () => `soak-${opts.seed}-${n}-${Math.floor(rand() * 1e9).toString(36)}`;
    if (roll < 0.05 || room < 2) {
      const r = newRequest();
      r.body.unknown_field = true; // 422 unknown_field: rejected before money
      issued += 1;
      await decide("invalid", r);
    } else if (roll < 0.2) {
      const r = { ...newRequest(), idempotencyKey: idem() };
      issued += 2;
      await decide("retry", r);
      await decide("retry", r);
    } else if (roll < 0.3 && room >= 3) {
      const r = { ...newRequest(), idempotencyKey: idem() };
      issued += 3;
      await Promise.all([decide("concurrent", r), decide("concurrent", r), decide("concurrent", r)]);
    } else if (roll < 0.35) {
      const r = { ...newRequest(), idempotencyKey: idem() };
      issued += 2;
      await decide("reused", r);
      await decide("reused", { ...r, body: { ...r.body, state: `${String(r.body.state)} (edited)` } });
    } else if (roll < 0.45 && room >= 4) {
      const r = newRequest("limited");
      issued += 4;
      await Promise.all(Array.from({ length: 4 }, () => decide("burst", { ...r })));
    } else {
      const r = newRequest();
      if (rand() < 0.3) r.idempotencyKey = idem();
      issued += 1;
      await decide("single", r);
    }
  };

  const poor = byName.get("poor");
  let pending = [...(opts.credits ?? [])];
  let n = 0;
  const client = async () => {
    while (issued < opts.requests) {
      await opts.gate(issued);
      if (issued >= opts.requests) return;
      if (poor && issued >= nextTopUp) {
        nextTopUp += opts.topUpEvery;
        const id = `soak_topup_${RUN_ID}_${topUps++}`;
        await credit(opts.baseUrl, opts.adminToken, poor, 500, id);
        // A payment delivered twice (a redelivered webhook) is credited once.
        if (topUps === 1) await credit(opts.baseUrl, opts.adminToken, poor, 500, id);
        if (issued >= opts.requests) return;
      }
      const due = pending.filter((c) => issued >= c.at * opts.requests);
      if (due.length > 0) {
        pending = pending.filter((c) => !due.includes(c));
        for (const c of due) await c.run();
        if (issued >= opts.requests) return;
      }
      await scenario(n++);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  return outcomes;
}
