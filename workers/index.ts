import { app } from "./app";
import type { Env } from "./env";
import { sweepRefundIntents } from "./ledger/refund-sweep";

export { AccountLedger } from "./ledger/account-ledger";

export default {
  fetch: app.fetch,
  async scheduled(_controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
    ctx.waitUntil(sweepRefundIntents(env));
  },
} satisfies ExportedHandler<Env>;
