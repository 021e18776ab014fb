// Issue 50 item 3 on the real stack: "Test it with a stalled database during a live batch, then a cancel: the
// balance moves by exactly `usage.charge_micro_cents`." The edge's Postgres is the test stack's behind the soak's
// stall proxy. Postgres stalls while lines are at the GPU (their debits taken), the stalled connections are cut (the
// lines' result writes fail, so whether they landed is unknown), the batch is cancelled as Postgres comes back:
// those lines are never claimed again, and the runner settles their lapsed attempts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type PausableProxy, pausableDatabase } from "../../../soak/pausable-proxy";
import {
  balanceOf,
  credit,
  type StandInGpu,
  seed,
  startEdge,
  startStandInGpu,
} from "../../support/money-harness";
import { stack } from "../../support/stack-db";

const FUNDS = 50_000_000;
const LINES = 24;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let proxy: PausableProxy;
let gpu: StandInGpu;
let edge: EdgeWorker;

beforeAll(async () => {
  const db = await pausableDatabase(stack().DATABASE_URL);
  proxy = db.proxy;
  gpu = await startStandInGpu("slow");
  edge = await startEdge({ gpuUrls: [gpu.url], bindings: { DATABASE_URL: db.url } });
}, 120_000);

afterAll(async () => {
  proxy?.resume();
  await edge?.stop();
  await gpu?.close();
  await proxy?.close();
});

const jsonl = Array.from({ length: LINES }, (_, i) =>
  JSON.stringify({
    custom_id: `ticket-${i}`,
    body: {
      state: { ticket: `Order ${1000 + i} arrived broken. Refund me.` },
      questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
    },
  }),
).join("\n");

describe("issue 50 item 3: a stalled database during a live batch, then a cancel", () => {
  it("'a charge kept without a result': the balance moves by exactly usage.charge_micro_cents", async () => {
    const account = await seed({ keys: [{ mode: "live" }] });
    const secret = account.keys[0]!.secret;
    await credit(edge.url, account.accountId, FUNDS);
    const api = (method: string, path: string, body?: string) =>
      fetch(`${edge.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/jsonl" },
        body,
      });
    const created = (await (await api("POST", "/v1/batches", jsonl)).json()) as { id: string };
    type Progress = { status: string; counts: { done: number }; usage: { charge_micro_cents: number } };
    const progress = async () => (await (await api("GET", `/v1/batches/${created.id}`)).json()) as Progress;
    for (let p = await progress(); p.counts.done < 2; p = await progress()) await sleep(100);

    // The moment the next line reaches the GPU (its debit taken), Postgres stops answering: the line comes back to
    // a database that does not answer.
    const calls = gpu.calls();
    while (gpu.calls() === calls) await sleep(5);
    proxy.pause();
    await sleep(1_000);
    proxy.cut(); // their result writes fail: landed or not, unknown to the runner (it backs off 2 s and more)
    await sleep(200);
    proxy.resume();
    // The cancel lands before the runner's next look at the batch: those lines are never claimed again.
    let cancelled = await api("POST", `/v1/batches/${created.id}/cancel`);
    if (cancelled.status === 503) cancelled = await api("POST", `/v1/batches/${created.id}/cancel`);
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");

    const end = Date.now() + 30_000;
    let last = { balance: 0, charged: 0 };
    for (;;) {
      const p = await progress();
      const balance = Number((await balanceOf(edge.url, secret)).balance_micro_cents);
      last = { balance, charged: p.usage.charge_micro_cents };
      if (p.status === "cancelled" && balance === FUNDS - p.usage.charge_micro_cents) break;
      if (Date.now() > end) break;
      await sleep(500);
    }
    expect(last.charged).toBeGreaterThan(0);
    expect(last.balance).toBe(FUNDS - last.charged);
  }, 120_000);
});
