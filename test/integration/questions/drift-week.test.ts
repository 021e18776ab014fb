// Issue 52, done when: "An integration test sends a week of decides whose answer mix shifts on day 5 (simulated
// clock), and the webhook fires once, with the numbers in its payload; a version change on day 3 does not fire."
// Real decides through the edge (workerd, the stack's Postgres and Redis); the answers come from a stand-in engine
// (test/support/mix-stand-in.ts) because the test must choose each answer's P(yes). The simulated time is the
// test stack's `x-svc-test-clock` (honoured only when ENVIRONMENT=test). The reference week runs first (days −7 to
// −1); then the week: on day 3 half the traffic moves to another exact version that answers differently, on
// day 5 the first version's answers shift. Drift is evaluated on read at the end of each simulated day.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hmacHex } from "../../../schema/signing";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type MixStandIn, startMixStandIn } from "../../support/mix-stand-in";
import { credit, decide, seed, startEdge } from "../../support/money-harness";
import { withStackDb } from "../../support/stack-db";

const CONSOLE_SECRET = "questions-test-console-secret-0123456789";
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 8, 7); // reference week from 2026-09-07
const WEEK = T0 + 7 * DAY; // the week under test, day 0

let gpu: MixStandIn;
let edge: EdgeWorker;
let hook: Server;
let hookUrl = "";
const received: Array<{ body: string; signature: string }> = [];

beforeAll(async () => {
  gpu = await startMixStandIn();
  edge = await startEdge({ gpuUrls: [gpu.url], bindings: { CONSOLE_SECRET } });
  hook = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString("utf8"),
        signature: String(req.headers["svc-signature"] ?? ""),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
}, 120_000);

afterAll(async () => {
  await edge?.stop();
  await gpu?.close();
  hook?.closeAllConnections();
  await new Promise((r) => hook?.close(r));
});

const body = (p: number, model: string) => ({
  model,
  state: { ticket: `p=${p} Buy cheap watches now` },
  questions: { spam: { type: "check", instructions: "Is this message spam?" } },
});

describe("issue 52: a week of decides whose answer mix shifts on day 5", () => {
  it("'the webhook fires once, with the numbers in its payload; a version change on day 3 does not fire'", async () => {
    const account = await seed({ keys: [{ mode: "live" }] });
    const secret = account.keys[0]!.secret;
    await credit(edge.url, account.accountId, 100_000_000);
    await withStackDb((q) =>
      q("INSERT INTO webhook_endpoints (account_id, id, url) VALUES ($1, 'we_QUESTIONS', $2)", [
        account.accountId,
        hookUrl,
      ]),
    );
    const send = async (at: number, p: number, model: string) => {
      const res = await decide(edge.url, secret, body(p, model), { "x-svc-test-clock": String(at) });
      expect(res.status, res.text).toBe(200);
    };
    const driftAt = async (at: number) => {
      const res = await fetch(`${edge.url}/v1/questions/${questionId}/drift`, {
        headers: { authorization: `Bearer ${secret}`, "x-svc-test-clock": String(at) },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { drifted: boolean; value: number | null; model: string };
    };
    let questionId = "";
    const drifted: number[] = [];
    for (let day = -7; day < 7; day++) {
      const start = WEEK + day * DAY;
      for (const hour of [1, 7, 13, 19]) {
        await send(start + hour * 3_600_000, day >= 5 ? 0.95 : 0.15, "svc-1.5.1");
        // Day 3: another exact version takes half the calls, answering very differently.
        if (day >= 3) await send(start + hour * 3_600_000 + 60_000, 0.65, "svc-1.5.0");
      }
      for (let i = 0; i < 50 && !questionId; i++) {
        const res = await fetch(`${edge.url}/v1/questions`, {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(res.status).toBe(200);
        questionId = ((await res.json()) as { data: Array<{ id: string }> }).data[0]?.id ?? "";
        if (!questionId) await new Promise((r) => setTimeout(r, 100));
      }
      if (day < 0) continue;
      await new Promise((r) => setTimeout(r, 150)); // the usage batch (50 ms) lands
      const d = await driftAt(start + DAY);
      if (d.drifted) drifted.push(day);
    }
    expect(drifted[0]).toBe(5);

    const end = Date.now() + 15_000;
    while (received.length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_000)); // nothing else arrives
    expect(received).toHaveLength(1);
    const event = JSON.parse(received[0]!.body);
    expect(event).toMatchObject({
      type: "question.drifted",
      data: {
        object: {
          question: questionId,
          model: "svc-1.5.1",
          statistic: "jensen_shannon_distance",
          threshold: 0.1,
          drifted: true,
          reference: {
            start: "2026-09-07T00:00:00Z",
            end: "2026-09-14T00:00:00Z",
            count: 28,
            complete: true,
          },
          current: { start: "2026-09-13T00:00:00Z", end: "2026-09-20T00:00:00Z", count: 28 },
        },
      },
    });
    expect(event.data.object.value).toBeGreaterThan(0.1);
    // Signed like the batch events: t=<s>,v1=HMAC(secret of the endpoint, "<t>.<body>").
    const endpointSecret = `whsec_${await hmacHex(CONSOLE_SECRET, "svc-webhook-endpoint:we_QUESTIONS")}`;
    const t = /t=(\d+)/.exec(received[0]!.signature)?.[1];
    expect(received[0]!.signature).toBe(
      `t=${t},v1=${await hmacHex(endpointSecret, `${t}.${received[0]!.body}`)}`,
    );
  }, 120_000);
});
