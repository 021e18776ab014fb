import { api } from "../api";
import { h } from "../dom";
import { eurFromMicroCents, tokens, when } from "../format";

export interface Overview {
  balance_micro_cents: number;
  balance_eur: string;
  tier: string;
  unit_price_micro_cents: number;
  month_to_date_tokens: number;
  next_tier_at_tokens: number | null;
  week_allowance_tokens: number;
  week_allowance_remaining_tokens: number;
  week_allowance_resets_at: number;
  email: string | null;
  test_daily_quota_tokens: number;
}

export interface Plan {
  id: string;
  name: string;
  price_cents: number;
  currency: string;
  week_allowance_tokens: number;
  seats_total: number;
  seats_left: number;
  available: boolean;
}

export interface PlanList {
  data: Plan[];
  top_up_packs: Array<{ credit_cents: number; prices: Record<string, number> }>;
}

/** GET /v1/console/subscription: the account's plan, and a change scheduled for the period's end. */
export interface Subscription {
  plan: string | null;
  status: string | null;
  pending_downgrade: { plan: string; effective_at: string | null } | null;
}

/** The subscribed plan's name, with a scheduled downgrade; "None" without a subscription. */
export function currentPlan(sub: Subscription, plans: Plan[]): string {
  const name = (id: string) => plans.find((p) => p.id === id)?.name ?? id;
  if (!sub.plan) return "None";
  const next = sub.pending_downgrade;
  return next ? `${name(sub.plan)}, then ${name(next.plan)}` : name(sub.plan);
}

function stat(label: string, value: string, id: string, detail?: string): HTMLElement {
  return h(
    "div",
    { class: "stat" },
    h("dt", {}, label),
    h("dd", { id }, value),
    detail ? h("dd", { class: "detail" }, detail) : null,
  );
}

/** Balance in EUR, tier, plan and the week's allowance left, month-to-date tokens. */
export async function overviewPage(main: HTMLElement): Promise<void> {
  const [o, plans, sub] = await Promise.all([
    api<Overview>("GET", "/v1/console/overview"),
    api<PlanList>("GET", "/v1/console/plans"),
    api<Subscription>("GET", "/v1/console/subscription"),
  ]);
  const balance = stat(
    "Balance",
    eurFromMicroCents(o.balance_micro_cents),
    "balance",
    `EUR ${o.balance_eur}`,
  );
  main.append(
    h(
      "dl",
      { class: "stats" },
      balance,
      stat(
        "Tier",
        o.tier.toUpperCase(),
        "tier",
        o.next_tier_at_tokens === null
          ? "the lowest price"
          : `next tier at ${tokens(o.next_tier_at_tokens)} tokens`,
      ),
      stat(
        "Plan",
        currentPlan(sub, plans.data),
        "plan",
        o.week_allowance_tokens ? "weekly allowance first" : "pay as you go from the balance",
      ),
      stat(
        "Weekly allowance left",
        `${tokens(o.week_allowance_remaining_tokens)} tokens`,
        "allowance",
        o.week_allowance_tokens
          ? `of ${tokens(o.week_allowance_tokens)}; resets ${when(o.week_allowance_resets_at)}`
          : "no plan",
      ),
      stat("Tokens this month", tokens(o.month_to_date_tokens), "mtd-tokens"),
      stat(
        "Free test tokens a day",
        tokens(o.test_daily_quota_tokens),
        "test-quota",
        "test keys and the playground",
      ),
    ),
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button", href: "/console/keys" }, "Create a key"),
      h("a", { class: "button secondary", href: "/console/billing" }, "Top up"),
      h("a", { class: "button secondary", href: "/console/playground" }, "Try a decision"),
    ),
  );
}
