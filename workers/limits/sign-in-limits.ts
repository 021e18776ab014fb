import { ApiError } from "../errors";
import type { RedisAccess } from "../stores/redis";
import { takeFromWindow, type WindowLimit } from "../stores/sliding-window";

const HOUR = 3600;
/** Spec: at most 5 codes an hour per address. */
export const EMAIL_CODES_PER_ADDRESS: WindowLimit = {
  prefix: "svc:rl:codes:addr",
  limit: 5,
  windowSeconds: HOUR,
};
/** Ours (docs/decisions.md): at most 30 codes an hour per client network, whatever the addresses. */
export const EMAIL_CODES_PER_NETWORK: WindowLimit = {
  prefix: "svc:rl:codes:net",
  limit: 30,
  windowSeconds: HOUR,
};
/** Spec: 60 identity-provider sign-ins an hour per client network (token exchange + browser start together). */
export const IDP_SIGN_INS_PER_NETWORK: WindowLimit = {
  prefix: "svc:rl:idp:net",
  limit: 60,
  windowSeconds: HOUR,
};

/** Seconds until `resetAt`, 1 to the window's length (the real wait of a refused take). */
export function waitSeconds(resetAt: number, windowSeconds: number, now: number = Date.now()): number {
  return Math.min(windowSeconds, Math.max(1, Math.ceil((resetAt - now) / 1000)));
}

/** The console's sign-in limits (sliding windows in Redis); a refused take throws the spec's 429. */
export class SignInLimiter {
  constructor(private readonly redis: RedisAccess) {}

  /** One e-mailed code: the network's window first, then the address's → 429 `email_codes_per_hour`. */
  async emailCode(address: string, network: string): Promise<void> {
    for (const [w, id] of [
      [EMAIL_CODES_PER_NETWORK, network],
      [EMAIL_CODES_PER_ADDRESS, address],
    ] as const) {
      const out = await takeFromWindow(this.redis, w, id);
      if (!out.success)
        throw new ApiError("email_codes_per_hour", {
          retryAfter: waitSeconds(out.resetAt, w.windowSeconds),
          message: "Too many sign-in codes were asked; try again later.",
        });
    }
  }

  /** One identity-provider sign-in (token exchange or browser start) → 429 `sign_ins_per_hour`. */
  async idpSignIn(network: string): Promise<void> {
    const out = await takeFromWindow(this.redis, IDP_SIGN_INS_PER_NETWORK, network);
    if (!out.success)
      throw new ApiError("sign_ins_per_hour", {
        retryAfter: waitSeconds(out.resetAt, IDP_SIGN_INS_PER_NETWORK.windowSeconds),
        message: "Too many sign-ins from this network; try again later.",
      });
  }
}
