import type Stripe from "stripe";
import { ulid } from "ulid";
import type { Currency } from "../../schema/currencies";
import { findPlan, type PlanTerms } from "../../schema/plans";
import type { EmailSender } from "../clients/email";
import { ApiError } from "../errors";
import type { Database } from "../stores/db";
import {
  type DowngradeRecord,
  finishDowngrade,
  liveDowngrade,
  markScheduled,
  reserveDowngrade,
} from "../stores/subscription-downgrades";
import { currentSubscription } from "../stores/subscriptions";
import { requireStripe, stripeUnavailable } from "./checkout-session";
import { releaseAndInvite } from "./seat-service";
import { requirePlan } from "./subscription-checkout";
import { type SubscriptionView, subscriptionView } from "./subscription-view";

/** What scheduling and cancelling a downgrade needs. */
export interface DowngradeDeps {
  db: Database;
  stripe: Stripe | null;
  email?: EmailSender;
}

const notAllowed = (message: string) => new ApiError("invalid_value", { param: "plan", message });

/** The Stripe Product a plan's recurring price is attached to; its id is ours, so creating it twice is safe. */
async function ensurePlanProduct(stripe: Stripe, plan: PlanTerms): Promise<string> {
  const id = `svc_plan_${plan.id}`;
  try {
    await stripe.products.create({ id, name: `svc ${plan.name}`, metadata: { plan_id: plan.id } });
  } catch (error) {
    if ((error as { code?: string }).code !== "resource_already_exists") throw error;
  }
  return id;
}

const priceId = (p: string | { id: string }) => (typeof p === "string" ? p : p.id);

/**
 * Asks Stripe for the change at the end of the period, as Stripe documents a downgrade: a Subscription
 * Schedule made from the subscription, then two phases — the current price until the period ends, the
 * cheaper price (no proration) from then on, whose metadata names the new plan — released when it ends so
 * the subscription carries on. Answers the schedule id and when the cheaper phase starts.
 */
async function createSchedule(
  stripe: Stripe,
  d: { id: string; accountId: string; subscriptionId: string; fromPlanId: string; plan: PlanTerms },
  created: { scheduleId?: string },
): Promise<{ scheduleId: string; effectiveAt: number }> {
  const sub = await stripe.subscriptions.retrieve(d.subscriptionId);
  const currency = sub.currency.toUpperCase() as Currency;
  const product = await ensurePlanProduct(stripe, d.plan);
  const schedule = await stripe.subscriptionSchedules.create(
    { from_subscription: sub.id },
    { idempotencyKey: `${d.id}-create` },
  );
  created.scheduleId = schedule.id;
  const current = schedule.phases[0]!;
  const updated = await stripe.subscriptionSchedules.update(
    schedule.id,
    {
      end_behavior: "release",
      metadata: {
        kind: "downgrade",
        downgrade_id: d.id,
        account_id: d.accountId,
        plan_id: d.plan.id,
        from_plan_id: d.fromPlanId,
      },
      phases: [
        {
          items: current.items.map((i) => ({ price: priceId(i.price), quantity: i.quantity ?? 1 })),
          start_date: current.start_date,
          end_date: current.end_date,
        },
        {
          items: [
            {
              quantity: 1,
              price_data: {
                currency: currency.toLowerCase(),
                product,
                unit_amount: d.plan.prices[currency].price_cents,
                recurring: { interval: "month" },
                tax_behavior: "exclusive",
              },
            },
          ],
          duration: { interval: "month", interval_count: 1 },
          proration_behavior: "none",
          metadata: { kind: "plan", account_id: d.accountId, plan_id: d.plan.id },
        },
      ],
    },
    { idempotencyKey: `${d.id}-phases` },
  );
  return { scheduleId: updated.id, effectiveAt: updated.phases[1]!.start_date };
}

/**
 * scheduleSubscriptionDowngrade: the account's active subscription changes to a cheaper plan at the end of
 * its current period. A `downgrade` seat on the cheaper plan is claimed first, race-free (409
 * `plan_sold_out` when none is left); asking for the downgrade already in flight answers it again; another
 * plan while one is in flight, no current subscription, or a plan not cheaper → 422 `invalid_value`
 * (`param` plan). Stripe unreachable → the seat is released, 503 `maintenance`, nothing scheduled.
 */
export async function scheduleDowngrade(
  deps: DowngradeDeps,
  req: { accountId: string; planId: string },
): Promise<{ created: boolean; view: SubscriptionView }> {
  const stripe = requireStripe(deps.stripe);
  const plan = requirePlan(req.planId);
  const sub = await currentSubscription(deps.db, req.accountId);
  const from = sub && findPlan(sub.plan_id);
  if (!sub || !from) throw notAllowed("The account has no active subscription to downgrade.");
  if (plan.price_cents >= from.price_cents)
    throw notAllowed(`\`${plan.id}\` is not cheaper than the current plan \`${from.id}\`.`);
  const d = {
    id: `sdg_${ulid()}`,
    accountId: req.accountId,
    subscriptionId: sub.id,
    fromPlanId: from.id,
    plan,
  };
  const reserved = await deps.db.transaction((tx) =>
    reserveDowngrade(tx, { ...d, planId: plan.id }, plan.seats_total),
  );
  if (reserved.outcome === "sold_out") throw new ApiError("plan_sold_out", { param: "plan" });
  if (reserved.outcome === "exists") {
    if (reserved.existing.plan_id !== plan.id)
      throw notAllowed(
        `A downgrade to \`${reserved.existing.plan_id}\` is already scheduled; cancel it first.`,
      );
    return { created: false, view: await subscriptionView(deps.db, req.accountId) };
  }
  const created: { scheduleId?: string } = {};
  try {
    const { scheduleId, effectiveAt } = await createSchedule(stripe, d, created);
    await markScheduled(deps.db, d.id, scheduleId, effectiveAt);
  } catch (error) {
    if (created.scheduleId)
      await stripe.subscriptionSchedules.release(created.scheduleId).catch(() => undefined);
    await endDowngrade(deps, d.id);
    throw stripeUnavailable(error);
  }
  return { created: true, view: await subscriptionView(deps.db, req.accountId) };
}

/** Ends a downgrade that will not happen and frees its seat on the cheaper plan (inviting the next waiting). */
export async function endDowngrade(
  deps: { db: Database; email?: EmailSender },
  id: string,
): Promise<DowngradeRecord | undefined> {
  const ended = await finishDowngrade(deps.db, id, "canceled");
  if (ended)
    await releaseAndInvite(deps, {
      accountId: ended.account_id,
      planId: ended.plan_id,
      kinds: ["downgrade"],
      ref: ended.id,
    });
  return ended;
}

/** Stripe refused the release because the schedule was already released or cancelled (its event still on the way). */
async function alreadyEnded(stripe: Stripe, scheduleId: string, error: unknown): Promise<boolean> {
  if ((error as { statusCode?: number }).statusCode !== 400) return false;
  const schedule = await stripe.subscriptionSchedules.retrieve(scheduleId).catch(() => null);
  return schedule?.status === "released" || schedule?.status === "canceled";
}

/**
 * cancelSubscriptionDowngrade: the scheduled downgrade is called off — Stripe releases the schedule (the
 * subscription stays on its plan) and the cheaper plan's seat is freed. Nothing scheduled, or a downgrade
 * already taking effect, answers the subscription unchanged. Stripe unreachable → 503 `maintenance`.
 */
export async function cancelDowngrade(deps: DowngradeDeps, accountId: string): Promise<SubscriptionView> {
  const stripe = requireStripe(deps.stripe);
  const d = await liveDowngrade(deps.db, accountId);
  const due = d?.effective_at ? new Date(d.effective_at).getTime() <= Date.now() : false;
  if (d?.status === "scheduled" && d.schedule_id && !due) {
    try {
      await stripe.subscriptionSchedules.release(d.schedule_id);
    } catch (error) {
      if (!(await alreadyEnded(stripe, d.schedule_id, error))) throw stripeUnavailable(error);
    }
    await endDowngrade(deps, d.id);
  }
  return subscriptionView(deps.db, accountId);
}

/**
 * `subscription_schedule.released|canceled|aborted` of one of our downgrades: when it had not taken effect
 * (called off in Stripe's dashboard, or the console's cancel), its seat is freed. Safe to run again.
 */
export async function downgradeScheduleEvent(
  deps: { db: Database; email?: EmailSender },
  type: string,
  schedule: Stripe.SubscriptionSchedule,
): Promise<string> {
  const id = schedule.metadata?.downgrade_id;
  if (schedule.metadata?.kind !== "downgrade" || !id) return "ignored";
  if (!/\.(released|canceled|aborted)$/.test(type)) return "ignored";
  return (await endDowngrade(deps, id)) ? "released" : "ignored";
}
