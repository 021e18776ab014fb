import { api, errorText } from "../api";
import { field, h, notice } from "../dom";
import { eurFromMicroCents, money, tokens } from "../format";
import type { Overview, Plan, PlanList } from "./overview";

const RETURN_PATH = "/console/billing/return";

/** A fresh idempotency key per click: a retried click of the same checkout is answered once. */
const idempotencyKey = () => `console-${crypto.randomUUID()}`;

/** Billing: balance, top-up (packs or an amount) through Stripe Checkout, plans with seats, waiting list. */
export async function billingPage(main: HTMLElement): Promise<void> {
  const [o, plans] = await Promise.all([
    api<Overview>("GET", "/v1/console/overview"),
    api<PlanList>("GET", "/v1/console/plans"),
  ]);
  const status = h("div", { "aria-live": "polite" });

  async function checkout(
    path: string,
    body: Record<string, unknown>,
    button: HTMLButtonElement,
  ): Promise<void> {
    button.setAttribute("disabled", "");
    status.replaceChildren(notice("info", "Opening the secure checkout…"));
    try {
      const c = await api<{ url: string }>("POST", path, {
        body: { ...body, return_path: RETURN_PATH },
        idempotencyKey: idempotencyKey(),
      });
      location.assign(c.url);
    } catch (e) {
      status.replaceChildren(notice("error", errorText(e)));
      button.removeAttribute("disabled");
    }
  }

  const packs = h(
    "div",
    { class: "packs", role: "group", "aria-label": "Top-up packs" },
    ...plans.top_up_packs.map((p) => {
      const b = h(
        "button",
        { type: "button", class: "pack", "data-cents": p.credit_cents },
        money(p.credit_cents, "EUR"),
      );
      b.addEventListener("click", () =>
        checkout("/v1/console/checkout-sessions", { amount_cents: p.credit_cents }, b),
      );
      return b;
    }),
  );
  const amount = h("input", {
    type: "number",
    name: "amount",
    min: 10,
    max: 2500,
    step: 1,
    required: true,
    inputmode: "numeric",
  });
  const pay = h("button", { type: "submit" }, "Top up");
  const custom = h(
    "form",
    { class: "row end", id: "top-up-amount" },
    field("Other amount (EUR)", amount, "EUR 10 to 2,500, excluding VAT."),
    pay,
  );
  custom.addEventListener("submit", (ev) => {
    ev.preventDefault();
    checkout("/v1/console/checkout-sessions", { amount_cents: Math.round(Number(amount.value) * 100) }, pay);
  });

  main.append(
    status,
    h(
      "section",
      { class: "card", "aria-labelledby": "topup-title" },
      h("h2", { id: "topup-title" }, "Top up"),
      h(
        "p",
        {},
        "Balance: ",
        h("strong", { id: "balance" }, eurFromMicroCents(o.balance_micro_cents)),
        ". Credit is in EUR; VAT is added at checkout.",
      ),
      packs,
      custom,
    ),
    h(
      "section",
      { "aria-labelledby": "plans-title" },
      h("h2", { id: "plans-title" }, "Plans"),
      h("p", {}, "A plan adds a weekly token allowance at a lower price; seats are limited."),
      planTable(plans.data, o, (plan, button) => {
        if (plan.available) return checkout("/v1/console/subscription-checkouts", { plan: plan.id }, button);
        return joinWaitingList(plan, button, status);
      }),
    ),
  );
}

async function joinWaitingList(plan: Plan, button: HTMLButtonElement, status: HTMLElement): Promise<void> {
  button.setAttribute("disabled", "");
  try {
    const e = await api<{ position: number }>("POST", "/v1/console/waiting-list", {
      body: { plan: plan.id },
      idempotencyKey: idempotencyKey(),
    });
    status.replaceChildren(
      notice(
        "success",
        `You are number ${e.position} on the waiting list for ${plan.name}. We e-mail you when a seat frees.`,
      ),
    );
  } catch (err) {
    status.replaceChildren(notice("error", errorText(err)));
    button.removeAttribute("disabled");
  }
}

function planTable(plans: Plan[], o: Overview, act: (p: Plan, b: HTMLButtonElement) => void): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "plans" },
      h("caption", { class: "visually-hidden" }, "Plans"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ...["Plan", "Price", "Weekly allowance", "Seats left", ""].map((t) => h("th", { scope: "col" }, t)),
        ),
      ),
      h(
        "tbody",
        {},
        ...plans.map((p) => {
          const mine = o.week_allowance_tokens > 0 && p.week_allowance_tokens === o.week_allowance_tokens;
          const b = h(
            "button",
            {
              type: "button",
              class: p.available ? "small" : "small secondary",
              "aria-label": `${p.available ? "Subscribe to" : "Join the waiting list for"} ${p.name}`,
            },
            p.available ? "Subscribe" : "Join waiting list",
          );
          b.addEventListener("click", () => act(p, b));
          return h(
            "tr",
            { "data-plan": p.id },
            h("th", { scope: "row" }, p.name),
            h("td", {}, `${money(p.price_cents, p.currency)} / month`),
            h("td", { class: "num" }, `${tokens(p.week_allowance_tokens)} tokens`),
            h("td", { class: "num" }, `${tokens(p.seats_left)} of ${tokens(p.seats_total)}`),
            h("td", {}, mine ? h("span", { class: "badge" }, "your plan") : b),
          );
        }),
      ),
    ),
  );
}

/** Where Stripe sends the browser back (`?checkout=success|cancelled`): the outcome and the balance. */
export async function billingReturnPage(main: HTMLElement): Promise<void> {
  const outcome = new URLSearchParams(location.search).get("checkout");
  const o = await api<Overview>("GET", "/v1/console/overview");
  const balance = h("strong", { id: "balance" }, eurFromMicroCents(o.balance_micro_cents));
  main.append(
    outcome === "success"
      ? notice(
          "success",
          "Thank you: the payment went through. A card payment is credited at once; a SEPA debit when it settles.",
        )
      : outcome === "cancelled"
        ? notice("info", "The checkout was cancelled; nothing was charged.")
        : notice("info", "No checkout to report."),
    h("p", { "aria-live": "polite" }, "Balance: ", balance),
    h(
      "p",
      { class: "actions" },
      h("a", { class: "button", href: "/console/billing" }, "Back to billing"),
      h("a", { class: "button secondary", href: "/console/" }, "Overview"),
    ),
  );
  // Stripe's webhook may land a moment after the browser: watch the balance for a while.
  if (outcome !== "success") return;
  for (let i = 0; i < 10; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const now = await api<Overview>("GET", "/v1/console/overview").catch(() => null);
    if (!now) continue;
    balance.textContent = eurFromMicroCents(now.balance_micro_cents);
    if (now.balance_micro_cents !== o.balance_micro_cents) return;
  }
}
