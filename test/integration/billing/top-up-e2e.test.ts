import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../scripts/stack/start-stack";

const EUR = 100_000_000;

/** Signs a new address in with an e-mailed code (the stack's fake inbox): the session cookie and CSRF token. */
async function signIn(stack: Stack): Promise<{ cookie: string; csrf: string }> {
  const email = `e2e-${Date.now()}@example.com`;
  const json = { "content-type": "application/json" };
  await fetch(`${stack.baseUrl}/v1/console/auth/codes`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email }),
  });
  const inbox = (await (await fetch(`${stack.console!.emailUrl}/__inbox?to=${email}`)).json()) as {
    data: { text: string }[];
  };
  const code = /\b(\d{8})\b/.exec(inbox.data.at(-1)!.text)![1];
  const res = await fetch(`${stack.baseUrl}/v1/console/sessions`, {
    method: "POST",
    headers: json,
    body: JSON.stringify({ email, code }),
  });
  expect(res.status).toBe(201);
  const token = /__Host-svc_session=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")![1]!;
  return {
    cookie: `__Host-svc_session=${token}`,
    csrf: ((await res.json()) as { csrf_token: string }).csrf_token,
  };
}

async function balance(stack: Stack, cookie: string): Promise<number> {
  const res = await fetch(`${stack.baseUrl}/v1/console/overview`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { balance_micro_cents: number }).balance_micro_cents;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("npm start: a top-up end to end (console route → fake Stripe's pay page → signed webhook → ledger)", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gpu: false });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it("the browser pays on the hosted page; the balance grows by the net EUR amount exactly once", async () => {
    const { cookie, csrf } = await signIn(stack);
    const before = await balance(stack, cookie);
    const res = await fetch(`${stack.baseUrl}/v1/console/checkout-sessions`, {
      method: "POST",
      headers: { cookie, "x-svc-csrf": csrf, "content-type": "application/json" },
      body: JSON.stringify({ amount_cents: 2_500, return_path: "/billing" }),
    });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { url: string };
    const page = await fetch(session.url);
    const html = await page.text();
    expect(html).toContain('<button type="submit" name="method" value="card" id="pay">Pay</button>');
    expect(html).toContain("EUR 30.00"); // 25.00 + 20 % VAT is what the customer pays
    const paid = await fetch(session.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "method=card",
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${stack.baseUrl}/billing?checkout=success`);
    const after = await until("the credit", async () => {
      const b = await balance(stack, cookie);
      return b > before ? b : undefined;
    });
    expect(after - before).toBe(25 * EUR);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await balance(stack, cookie)).toBe(after);
    // The hosted page of a paid session no longer offers to pay.
    expect(await (await fetch(session.url)).text()).toContain('id="closed"');
  });
});
