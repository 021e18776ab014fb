// Worker-tier helpers for tests that drive an account's batch runner themselves (runBatchSlice on the real
// stores, ledger and R2). Their calls go to the real app with the runner Durable Object's kick made a no-op:
// otherwise the kick of an upload or a cancel starts the account's background runner, which then works on the
// same batch as the test's own slice, and the two race (the cause of a flaky "a top-up resumes it").
import { env } from "cloudflare:test";
import type { BatchRunnerDeps } from "../../workers/batches/runner";
import { runBatchSlice } from "../../workers/batches/runner";
import type { Env } from "../../workers/env";
import { TEST_DAILY_QUOTA } from "../../workers/limits/key-limits";
import { buildServices } from "../../workers/services";
import { EvaluationQuota } from "../../workers/stores/evaluation-quota";
import { redisAccess } from "../../workers/stores/redis";
import { REFUND_CHECK } from "./calibrations";
import { type CallOptions, consoleApp, consoleEnv, randomIp } from "./console";
import { seed } from "./worker-http";

const workerEnv = env as unknown as Env;

/** The console env with the runner's kick a no-op: the test is the account's only runner. */
export const quietEnv: Env = {
  ...consoleEnv,
  EVALUATIONS: {
    idFromName: (name: string) => ({ name }),
    get: () => ({ kick: async () => {} }),
  } as unknown as Env["EVALUATIONS"],
};

/** Calls the app like `consoleCall` (a body may also be a stream), without waking the account's background runner. */
export async function quietCall(method: string, path: string, o: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-type"] ??= "application/json";
  if (o.cookie) headers.cookie = `__Host-svc_session=${o.cookie}`;
  if (o.csrf) headers["x-svc-csrf"] = o.csrf;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  headers["cf-connecting-ip"] = o.ip ?? randomIp();
  const body =
    o.body === undefined || o.body instanceof ReadableStream || typeof o.body === "string"
      ? o.body
      : JSON.stringify(o.body);
  return await consoleApp.request(`https://svc.test${path}`, { method, headers, body }, quietEnv);
}

/** A decide body of one batch line. */
export const decideBody = (n: number) => ({
  state: { ticket: `Parcel ${n} arrived broken, I want my money back.` },
  questions: { refund: REFUND_CHECK },
});
/** One batch line. */
export const line = (n: number, body: unknown = decideBody(n)) =>
  JSON.stringify({ custom_id: `t-${n}`, body });
/** A JSONL body. */
export const jsonl = (lines: string[]) => `${lines.join("\n")}\n`;

/** Uploads a batch with `secret` (no background runner); its id. */
export async function quietUpload(secret: string, lines: string[]): Promise<string> {
  const res = await quietCall("POST", "/v1/batches", {
    bearer: secret,
    body: jsonl(lines),
    headers: { "content-type": "application/jsonl" },
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${text}`);
  return (JSON.parse(text) as { id: string }).id;
}

/** The runner's dependencies on the real stores, the real ledger and R2, with `engine` for the GPU pool. */
export function runnerDeps(
  engine: BatchRunnerDeps["engine"],
  over: Partial<BatchRunnerDeps> = {},
): BatchRunnerDeps {
  const services = buildServices(workerEnv);
  return {
    db: services.db,
    env: workerEnv,
    engine,
    ledger: services.ledger,
    refundIntents: services.refundIntents,
    calibrations: services.calibrations,
    limits: services.limits,
    bucket: workerEnv.BATCHES,
    quota: new EvaluationQuota(redisAccess(workerEnv), TEST_DAILY_QUOTA),
    ...over,
  };
}

/** Runs slices until nothing is left or the batch waits (paused) longer than 5 s. */
export async function runToEnd(deps: BatchRunnerDeps, account: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const next = await runBatchSlice(deps, account, { failures: 0 }, 20_000);
    if (next === null) return;
    if (next > (deps.now?.() ?? Date.now()) + 5_000) return;
  }
}

/** A fresh account with one key of `mode`, funded with `funds` micro-cents when live. */
export async function newAccount(mode: "live" | "test", funds: number) {
  const a = await seed({ keys: [{ mode }] });
  if (mode === "live" && funds > 0)
    await buildServices(workerEnv)
      .ledger(a.accountId)
      .credit({ account_id: a.accountId, payment_id: `pay_${a.accountId}`, amount_micro_cents: funds });
  return { accountId: a.accountId, secret: a.keys[0]!.secret };
}
