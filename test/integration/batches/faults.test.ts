// Issue 42, "crash-safe": a live batch through the edge in workerd (its runner Durable Object's alarm, R2, the
// ledger) while the GPU worker dies mid-request and Redis goes away; every line is answered once and the balance
// moves by exactly the sum of the results' charges. The real-model version is the crash part of
// `npm run bench:batch` (bench/batch.ts).
import { describe, expect, it } from "vitest";
import { balanceOf, credit, seed, useMoneyEdge } from "../../support/money-harness";
import { upstashBridge, withStackDb } from "../../support/stack-db";

const FUNDS = 50_000_000;
const LINES = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const world = useMoneyEdge("slow");

const jsonl = Array.from({ length: LINES }, (_, i) =>
  JSON.stringify({
    custom_id: `ticket-${i}`,
    body: {
      state: { ticket: `Order ${1000 + i} arrived broken. ${i % 2 ? "Refund me." : "Send another."}` },
      questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
      fallback: "allow",
    },
  }),
).join("\n");

describe("a batch survives a GPU worker killed mid-request and a Redis outage", () => {
  it("'crash-safe': every line answered once; balance moved by exactly Σ the results' charges; usage counts each line", async () => {
    const account = await seed({ keys: [{ mode: "live" }] });
    const secret = account.keys[0]!.secret;
    await credit(world.edge.url, account.accountId, FUNDS);
    const api = (method: string, path: string, body?: string) =>
      fetch(`${world.edge.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/jsonl" },
        body,
      });
    const res = await api("POST", "/v1/batches", jsonl);
    const created = (await res.json()) as { id: string; status: string };
    expect(res.status, JSON.stringify(created)).toBe(201);
    expect(created.status).toBe("queued");
    const progress = async () =>
      (await (await api("GET", `/v1/batches/${created.id}`)).json()) as {
        status: string;
        counts: { done: number; failed: number };
        usage: { charge_micro_cents: number };
      };
    const waitFor = async (ok: (p: Awaited<ReturnType<typeof progress>>) => boolean, ms: number) => {
      const end = Date.now() + ms;
      for (;;) {
        const p = await progress();
        if (ok(p)) return p;
        if (Date.now() > end) throw new Error(`timed out: ${JSON.stringify(p)}`);
        await sleep(250);
      }
    };
    await waitFor((p) => p.counts.done >= 8, 60_000);
    world.gpu.setMode("kill");
    await sleep(1_500);
    world.gpu.setMode("slow");
    await waitFor((p) => p.counts.done >= 20, 60_000);
    await upstashBridge("stop");
    await sleep(1_500);
    await upstashBridge("start");
    const done = await waitFor((p) => p.status === "completed", 120_000);
    expect(done.counts).toEqual({ total: LINES, done: LINES, failed: 0 });

    const results = (await (await api("GET", `/v1/batches/${created.id}/results`)).text())
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            custom_id: string;
            status: number;
            body: { id: string; served_by: string; usage: { charge_micro_cents: number } };
          },
      );
    expect(results.map((r) => r.custom_id)).toEqual(Array.from({ length: LINES }, (_, i) => `ticket-${i}`));
    expect(results.every((r) => r.status === 200 && r.body.served_by === "gpu")).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(LINES);
    const sum = results.reduce((s, r) => s + r.body.usage.charge_micro_cents, 0);
    expect(done.usage.charge_micro_cents).toBe(sum);
    const balance = await balanceOf(world.edge.url, secret);
    expect(balance.balance_micro_cents).toBe(FUNDS - sum);
    // Usage: one event per line (a decide's, client `(batch)`), the same charges.
    await sleep(500);
    const usage = await withStackDb((q) =>
      q(
        `SELECT count(*)::int AS n, coalesce(sum(charge_micro_cents), 0)::bigint AS charged
           FROM usage_events WHERE account_id = $1 AND client_name = '(batch)' AND status = 200`,
        [account.accountId],
      ),
    );
    expect(Number(usage.rows[0]!.n)).toBe(LINES);
    expect(Number(usage.rows[0]!.charged)).toBe(sum);
  }, 300_000);
});
