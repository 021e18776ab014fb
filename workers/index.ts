import { app } from "./app";
import { sweepRefundIntents } from "./billing/refund-sweep";
import { sweepInvitations } from "./billing/seat-service";
import type { Env } from "./env";
import { ledgerStub } from "./ledger/stub";
import { database } from "./stores/db";

export { AccountLedger } from "./ledger/account-ledger";

export default {
  fetch: app.fetch,
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(sweepRefundIntents(env, (accountId) => ledgerStub(env, accountId)));
    if (env.DATABASE_URL) ctx.waitUntil(sweepInvitations(database(env)));
  },
} satisfies ExportedHandler<Env>;
