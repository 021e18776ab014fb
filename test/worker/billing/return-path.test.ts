import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../workers/env";
import { postAs } from "../../support/billing";
import { BASE, seed } from "../../support/worker-http";

const e = env as unknown as Env;
const newAccount = async () => (await seed({ keys: [] })).accountId;

/** The success and cancel URLs the fake Stripe recorded for a Checkout Session. */
async function backUrls(sessionId: string): Promise<string[]> {
  const res = await fetch(`${e.STRIPE_API_URL}/v1/checkout/sessions/${sessionId}`, {
    headers: { authorization: "Bearer sk_test_local_fake" },
  });
  const s = (await res.json()) as { success_url: string; cancel_url: string };
  return [s.success_url, s.cancel_url];
}

describe("issue 45 item 5: return_path never leaves the console's origin", () => {
  const origin = new URL(e.CONSOLE_ORIGIN ?? BASE).origin;

  for (const [route, body] of [
    ["/v1/console/checkout-sessions", { amount_cents: 1_000 }],
    ["/v1/console/subscription-checkouts", { plan: "base" }],
  ] as const) {
    it(`${route}: "the URL is the console origin followed by the path": //host/x (the spec's pattern admits it) stays on the origin`, async () => {
      for (const path of ["//evil/x", "//localhost", "//3232235777/x", "///evil/x"]) {
        const res = await postAs(await newAccount(), route, { ...body, return_path: path });
        expect(res.status, await res.clone().text()).toBe(201);
        const { id } = (await res.json()) as { id: string };
        for (const url of await backUrls(id)) {
          const u = new URL(url);
          expect(u.origin).toBe(origin);
          expect(u.pathname).toBe(path);
        }
      }
    });
  }
});
