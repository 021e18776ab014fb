import { app } from "./app";
import { sweepRefundIntents } from "./billing/refund-sweep";
import type { Env } from "./env";
import { ledgerStub } from "./ledger/stub";

export { AccountLedger } from "./ledger/account-ledger";

export default {
  fetch: app.fetch,
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(sweepRefundIntents(env, (accountId) => ledgerStub(env, accountId)));
  },
} satisfies ExportedHandler<Env>;
