// The edge Worker as `npm start` runs it, plus one operator route for the soak harness:
// `POST /__soak/ledger/{account_id}` (ADMIN_TOKEN) applies pending refund intents, flushes the journal to
// Postgres and answers the ledger's balance and journal rows, so the checker can compare them.
import type { Env } from "../workers/env";
import worker from "../workers/index";
import { ledgerStub } from "../workers/ledger/stub";

export { AccountLedger } from "../workers/ledger/account-ledger";
export { EvaluationRunner } from "../workers/runner/runner-object";

const ROUTE = /^\/__soak\/ledger\/(acc_[0-9A-Za-z]+)$/;

async function sameToken(given: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all(
    [given, expected].map((s) => crypto.subtle.digest("SHA-256", enc.encode(s))),
  );
  return crypto.subtle.timingSafeEqual(a as ArrayBuffer, b as ArrayBuffer);
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const m = ROUTE.exec(new URL(request.url).pathname);
    if (!m || request.method !== "POST") return worker.fetch(request, env, ctx);
    const auth = request.headers.get("authorization") ?? "";
    if (!env.ADMIN_TOKEN || !(await sameToken(auth, `Bearer ${env.ADMIN_TOKEN}`)))
      return new Response(null, { status: 401 });
    const accountId = m[1] as string;
    const ledger = env.LEDGER.get(env.LEDGER.idFromName(accountId));
    await ledgerStub(env, accountId).applyRefundIntents(accountId);
    await ledger.flush();
    const [balance, journal] = await Promise.all([ledger.balance(), ledger.journalRows()]);
    return Response.json({ balance_micro_cents: balance.balance_micro_cents, journal });
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;
