import { ApiError } from "../errors";
import { logEvent } from "../observability/log";
import { type BackoffLimit, giveBackBackoffTry, takeBackoffTry } from "../stores/backoff-window";
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
/**
 * Ours (docs/decisions.md): the whole service sends at most 1,000 sign-in e-mails an hour, whoever asks; past
 * it → 429 `sign_in_emails_per_hour` and an operator alert in the logs. Addresses without an account may use
 * only the first 70 % of it (`ACCOUNT_RESERVE_SHARE`): a flood of strangers' addresses cannot stop the owners
 * of existing accounts from signing in (issue 50 item 9).
 */
export const SIGN_IN_EMAIL_BUDGET: WindowLimit = {
  prefix: "svc:rl:codes:all",
  limit: 1000,
  windowSeconds: HOUR,
};
/** The share of the hourly e-mail budget kept for addresses that already have an account. */
export const ACCOUNT_RESERVE_SHARE = 0.3;
/**
 * Ours (docs/decisions.md): code tries (POST /v1/console/sessions) per client network: 20 without a wait, then
 * 30 s, 60 s, 2 min… doubling up to an hour; a right code gives its try back.
 */
export const CODE_TRIES_PER_NETWORK: BackoffLimit = {
  prefix: "svc:rl:tries:net",
  free: 20,
  baseMs: 30_000,
  capMs: HOUR * 1000,
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

/** The console's sign-in limits (sliding windows and a backoff in Redis); a refused take throws a 429. */
export class SignInLimiter {
  private readonly emailBudget: WindowLimit;
  private alertedAt = 0;

  /** `emailBudget` replaces the service-wide budget of sign-in e-mails (tests give theirs a key of its own). */
  constructor(
    private readonly redis: RedisAccess,
    opts: { emailBudget?: WindowLimit } = {},
  ) {
    this.emailBudget = opts.emailBudget ?? SIGN_IN_EMAIL_BUDGET;
  }

  /**
   * One e-mailed code: the network's window, then the address's → 429 `email_codes_per_hour`; then the
   * service's hourly budget → 429 `sign_in_emails_per_hour`, with an operator alert (once a minute per isolate).
   * An address without an account (`hasAccount` false) first takes from the open part of the budget (all but
   * `ACCOUNT_RESERVE_SHARE`), so the rest stays for the owners of existing accounts.
   */
  async emailCode(address: string, network: string, hasAccount: boolean): Promise<void> {
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
    const open: WindowLimit = {
      ...this.emailBudget,
      limit: this.emailBudget.limit - Math.floor(this.emailBudget.limit * ACCOUNT_RESERVE_SHARE),
    };
    const part = hasAccount ? null : await takeFromWindow(this.redis, open, "new");
    const budget = part && !part.success ? part : await takeFromWindow(this.redis, this.emailBudget, "all");
    if (budget.success) return;
    const retryAfter = waitSeconds(budget.resetAt, this.emailBudget.windowSeconds);
    if (Date.now() - this.alertedAt >= 60_000) {
      this.alertedAt = Date.now();
      logEvent("error", "sign_in_email_budget_used_up", {
        alert: true,
        limit_per_hour: this.emailBudget.limit,
        part: budget === part ? "addresses_without_account" : "all",
        retry_after_s: retryAfter,
      });
    }
    throw new ApiError("sign_in_emails_per_hour", {
      retryAfter,
      message:
        "Sign-in e-mails are paused for a while; try again later or sign in with your identity provider.",
    });
  }

  /** One code try from `network` → 429 `sign_in_tries_per_network` while the network's backoff lasts. */
  async codeTry(network: string): Promise<void> {
    const waitMs = await takeBackoffTry(this.redis, CODE_TRIES_PER_NETWORK, network);
    if (waitMs > 0)
      throw new ApiError("sign_in_tries_per_network", {
        retryAfter: Math.min(HOUR, Math.max(1, Math.ceil(waitMs / 1000))),
        message: "Too many sign-in code tries from this network; try again later.",
      });
  }

  /** A right code's try, given back: a network's successful sign-ins never slow it down. */
  async codeTrySucceeded(network: string): Promise<void> {
    await giveBackBackoffTry(this.redis, CODE_TRIES_PER_NETWORK, network);
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
