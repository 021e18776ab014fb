import type { FakeSession } from "./objects";

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const money = (minor: number, currency: string) => `${currency.toUpperCase()} ${(minor / 100).toFixed(2)}`;

/** The hosted pay page: the amount and two ways to pay (card settles now, SEPA direct debit later). */
export function payPage(s: FakeSession): string {
  const open = s.status === "open" && s.expires_at * 1000 > Date.now();
  const what = s.mode === "subscription" ? "Subscription (monthly)" : "Top-up";
  const form = open
    ? `<form method="post" action="/pay/${esc(s.id)}">
  <button type="submit" name="method" value="card" id="pay">Pay</button>
  <button type="submit" name="method" value="sepa_debit" id="pay-sepa">Pay by SEPA Direct Debit (settles later)</button>
</form>
${s.cancel_url ? `<p><a id="cancel" href="${esc(s.cancel_url)}">Cancel</a></p>` : ""}`
    : `<p id="closed">This checkout is ${esc(s.status === "open" ? "expired" : s.status)}.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fake Stripe Checkout</title></head>
<body>
<h1>Fake Stripe Checkout (local)</h1>
<p>${what}: <strong id="subtotal">${money(s.amount_subtotal, s.currency)}</strong> + VAT
${money(s.total_details.amount_tax, s.currency)} = <strong id="total">${money(s.amount_total, s.currency)}</strong></p>
${form}
</body></html>`;
}
