import type { SoakAccount } from "./accounts";
import { send } from "./client";

/** Micro-cents per cent (a top-up's net cents are credited at this rate). */
const MICRO_CENTS_PER_CENT = 1_000_000;

/** A console account: signed in through the identity provider (native-app flow), its keys made in the console. */
export interface ConsoleAccount {
  account: SoakAccount;
  session: string;
}

async function ok(what: string, p: ReturnType<typeof send>, status: number) {
  const res = await p;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.json as Record<string, unknown>;
}

export async function signUpConsoleAccount(
  baseUrl: string,
  idpUrl: string,
  name: string,
): Promise<ConsoleAccount> {
  const email = `soak-${name}-${Date.now()}@example.com`;
  const minted = await ok(
    "idp mint",
    send(`${idpUrl}/__mint`, { method: "POST", body: JSON.stringify({ email, nonce: "soak" }) }),
    200,
  );
  const app = await ok(
    "app session",
    send(`${baseUrl}/v1/console/auth/idp/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id_token: minted.id_token, nonce: "soak" }),
    }),
    200,
  );
  const session = String(app.session_token);
  const key = async (mode: "live" | "test") =>
    String(
      (
        await ok(
          `console key ${mode}`,
          send(`${baseUrl}/v1/console/keys`, {
            method: "POST",
            headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
            body: JSON.stringify({ name: `soak ${mode}`, mode, scopes: ["decide"] }),
          }),
          201,
        )
      ).secret,
    );
  return {
    session,
    account: {
      name,
      accountId: String(app.account_id),
      live: [await key("live")],
      test: [await key("test")],
      credits: [],
    },
  };
}

/**
 * A top-up through Stripe Checkout (the local Stripe's pay page, by card): the credit lands when the signed
 * webhook reaches the Worker, so it is recorded as expected and the checker waits for its journal row.
 */
export async function stripeTopUp(baseUrl: string, c: ConsoleAccount, cents: number, idempotencyKey: string) {
  const session = await ok(
    "checkout session",
    send(`${baseUrl}/v1/console/checkout-sessions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${c.session}`,
        "content-type": "application/json",
        "idempotency-key": idempotencyKey,
      },
      body: JSON.stringify({ amount_cents: cents, return_path: "/billing" }),
    }),
    201,
  );
  const paid = await send(String(session.url), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "method=card",
  });
  c.account.credits.push({
    paymentId: String(session.id),
    amount: cents * MICRO_CENTS_PER_CENT,
    duplicate: false,
    status: paid.status < 400 ? 200 : paid.status,
  });
}
