import type { Env } from "../env";

/** Every alert (docs/operations.md has what each means, how to confirm it and what to do). */
export const ALERTS = {
  refund_intents_unsettled: "Refund intents unsettled",
  gpu_pool_unavailable: "GPU pool empty or every worker 503",
  server_errors: "5xx above 1 % of decides",
  stripe_signature_failures: "Stripe webhook signature failures",
  canary_mismatch: "Canary failed on a worker",
  ledger_errors: "Ledger Durable Object errors",
  redis_unreachable: "Redis unreachable",
  postgres_unreachable: "Postgres unreachable",
} as const;

export type AlertName = keyof typeof ALERTS;

/** One instance of an alert whose condition holds now (`key` names the instance, e.g. the worker). */
export interface Firing {
  key: string;
  summary: string;
  detail: string;
}

/**
 * What a check found: the instances firing now (none: the condition is clear), or `null` when it could not
 * be observed (its signal's store is down): then nothing of that alert is opened or resolved.
 */
export interface CheckResult {
  alert: AlertName;
  /** How long the condition must hold before the incident opens (ms). */
  forMs: number;
  firing: Firing[] | null;
}

/** Thresholds (env overrides, documented in docs/deploy.md and docs/operations.md). */
export interface Thresholds {
  refundIntentMinutes: number;
  poolDownMs: number;
  serverErrorShare: number;
  /** At least this many 5xx too, so one failed call on a quiet minute does not page. */
  serverErrorMin: number;
  /** The decides over which the 5xx share is taken. */
  serverErrorWindowSeconds: number;
  windowMinutes: number;
  stripeSignatureFailures: number;
  ledgerErrors: number;
}

const positive = (v: string | undefined, fallback: number) => {
  const n = Number(v);
  return v && Number.isFinite(n) && n >= 0 ? n : fallback;
};

export function thresholds(env: Env): Thresholds {
  return {
    refundIntentMinutes: positive(env.ALERT_REFUND_INTENT_MINUTES, 15),
    poolDownMs: positive(env.ALERT_POOL_DOWN_SECONDS, 60) * 1000,
    serverErrorShare: 0.01,
    serverErrorMin: 3,
    serverErrorWindowSeconds: positive(env.ALERT_5XX_WINDOW_SECONDS, 300),
    windowMinutes: 5,
    stripeSignatureFailures: 3,
    ledgerErrors: 1,
  };
}
