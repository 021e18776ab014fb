import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/** Placeholder: replaced by the money-path work (balance, allowance, tier, journal). */
export class AccountLedger extends DurableObject<Env> {
  async ping(): Promise<string> {
    return "pong";
  }
}
