import type { Database } from "../stores/db";
import { type DowngradeRecord, liveDowngrade } from "../stores/subscription-downgrades";
import { currentSubscription } from "../stores/subscriptions";

/** A scheduled downgrade as the console shows it. */
export interface DowngradeView {
  id: string;
  object: "subscription_downgrade";
  from_plan: string;
  plan: string;
  status: "pending" | "scheduled" | "completed" | "canceled";
  effective_at: string | null;
}

/** The account's subscription as the console shows it (every field null without one). */
export interface SubscriptionView {
  object: "subscription";
  id: string | null;
  plan: string | null;
  status: string | null;
  current_period_end: string | null;
  pending_downgrade: DowngradeView | null;
}

const iso = (v: string | number | Date | null | undefined): string | null =>
  v === null || v === undefined ? null : new Date(v).toISOString();

/** A stored downgrade as the console answers it. */
export function downgradeView(d: DowngradeRecord): DowngradeView {
  return {
    id: d.id,
    object: "subscription_downgrade",
    from_plan: d.from_plan_id,
    plan: d.plan_id,
    status: d.status,
    effective_at: iso(d.effective_at),
  };
}

/** The account's current subscription (active, past_due, trialing) and its downgrade in flight. */
export async function subscriptionView(db: Database, accountId: string): Promise<SubscriptionView> {
  const [sub, downgrade] = await Promise.all([
    currentSubscription(db, accountId),
    liveDowngrade(db, accountId),
  ]);
  return {
    object: "subscription",
    id: sub?.id ?? null,
    plan: sub?.plan_id ?? null,
    status: sub?.status ?? null,
    current_period_end: iso(sub?.current_period_end),
    pending_downgrade: sub && downgrade?.subscription_id === sub.id ? downgradeView(downgrade) : null,
  };
}
