// Issue 43 items 4 and 6: each store and pool alert is raised by the soak harness's fault that causes it (Redis
// stopped, the GPU worker killed, Postgres stalled) and resolved once the fault is over; one message each way on
// the operator webhook (the capture server `npm start` runs), a failed delivery retried on the next tick.
// One edge for the file: its Postgres is the test stack's behind the soak's stall proxy, its Redis a server of
// its own (stopped and started on its port), its pool one real GPU worker on the small model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../gpu-worker/src/spawn-worker";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type FakeAlerts, startFakeAlerts } from "../../../scripts/stack/fake-alerts";
import { type RedisHandle, startRedis } from "../../../scripts/stack/redis";
import { startUpstashBridge, type UpstashBridge } from "../../../scripts/stack/upstash-bridge";
import { type PausableProxy, pausableDatabase } from "../../../soak/pausable-proxy";
import {
  ADMIN_TOKEN,
  credit,
  DECIDE_BODY,
  decide,
  GPU_SECRET,
  seed,
  startEdge,
} from "../../support/money-harness";
import { stack } from "../../support/stack-db";

const GPU_ENV = { GPU_SIGNING_SECRET: GPU_SECRET, SVC_MODEL_VERSION: "svc-1.4.0", SVC_LANES: "1" };
/** The 5xx share's window here (300 s in production), so the test sees it clear. */
const ERROR_WINDOW_S = 12;

let hook: FakeAlerts;
let proxy: PausableProxy;
let redis: RedisHandle;
let bridge: UpstashBridge;
let gpu: RunningWorker;
let edge: EdgeWorker;

beforeAll(async () => {
  const db = await pausableDatabase(stack().DATABASE_URL);
  proxy = db.proxy;
  redis = await startRedis();
  bridge = await startUpstashBridge({ redisUrl: redis.url });
  hook = await startFakeAlerts();
  gpu = await startWorker(GPU_ENV);
  edge = await startEdge({
    gpuUrls: [gpu.url],
    bindings: {
      DATABASE_URL: db.url,
      UPSTASH_REDIS_REST_URL: bridge.url,
      UPSTASH_REDIS_REST_TOKEN: bridge.token,
      ALERT_WEBHOOK_URL: hook.hookUrl,
      ALERT_POOL_DOWN_SECONDS: "1",
      ALERT_5XX_WINDOW_SECONDS: String(ERROR_WINDOW_S),
    },
  });
  await evaluate(); // whatever other files left in the shared database settles first
}, 120_000);

afterAll(async () => {
  proxy?.resume();
  await edge?.stop();
  await gpu?.stop();
  await bridge?.stop();
  await redis?.stop();
  await proxy?.close();
  await hook?.close();
});

async function evaluate(): Promise<{ redis: string | null; postgres: string | null; opened: string[] }> {
  const res = await fetch(`${edge.url}/internal/alerts/evaluate`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ redis: string | null; postgres: string | null; opened: string[] }>;
}

const messages = (alert: string) =>
  hook
    .received()
    .map((m) => m.text)
    .filter((t) => t.includes(`] ${alert} `));

describe("alerts raised by real faults, resolved after", () => {
  it("'Redis unreachable': Redis stopped → one FIRING (retried on the next tick while the receiver failed); started again → one RESOLVED", async () => {
    await redis.stop();
    hook.setFailing(true);
    const down = await evaluate();
    expect(down.redis).not.toBeNull();
    expect(messages("redis_unreachable")).toEqual([]); // the receiver refused it
    hook.setFailing(false);
    await evaluate();
    expect(messages("redis_unreachable")).toEqual([expect.stringMatching(/^\[FIRING\] redis_unreachable/)]);
    await evaluate();
    expect(messages("redis_unreachable")).toHaveLength(1);

    redis = await startRedis({ port: redis.port, binary: redis.server.path });
    // The Upstash bridge reconnects on its own schedule.
    await expect.poll(async () => (await evaluate()).redis, { timeout: 15_000, interval: 250 }).toBeNull();
    expect(messages("redis_unreachable")).toEqual([
      expect.stringMatching(/^\[FIRING\] redis_unreachable/),
      expect.stringMatching(/^\[RESOLVED\] redis_unreachable/),
    ]);
  });

  it("'the pool empty or every worker 503 for 1 minute' (ALERT_POOL_DOWN_SECONDS=1 here) and '5xx above 1 % over 5 minutes' (a 12 s window here): the GPU worker killed → decides answer 503 → both FIRING; a new worker on its port and a clean window → both RESOLVED", async () => {
    const account = await seed();
    await credit(edge.url, account.accountId, 10_000_000);
    const secret = account.keys[0]!.secret;
    const body = { ...DECIDE_BODY, model: "svc-1.4.0" };
    expect((await decide(edge.url, secret, body)).status).toBe(200);

    const port = new URL(gpu.url).port;
    gpu.child.kill("SIGKILL");
    await evaluate(); // pending: not yet held for its duration
    expect(messages("gpu_pool_unavailable")).toEqual([]);
    for (let i = 0; i < 3; i++) {
      const refused = await decide(edge.url, secret, body);
      expect(refused.status, refused.text).toBe(503);
    }
    await new Promise((r) => setTimeout(r, 1_100));
    // The decides' usage events are written after their answers: the share is seen once they are in.
    for (let i = 0; i < 20 && messages("server_errors").length === 0; i++) {
      await evaluate();
      if (messages("server_errors").length === 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(messages("gpu_pool_unavailable")).toEqual([
      expect.stringMatching(/^\[FIRING\] gpu_pool_unavailable/),
    ]);
    expect(messages("server_errors")).toEqual([
      expect.stringMatching(/^\[FIRING\] server_errors .*% of decides answered 5xx over 12 s/),
    ]);

    await gpu.stop();
    gpu = await startWorker({ ...GPU_ENV, PORT: port });
    await evaluate();
    expect(messages("gpu_pool_unavailable")).toEqual([
      expect.stringMatching(/^\[FIRING\] gpu_pool_unavailable/),
      expect.stringMatching(/^\[RESOLVED\] gpu_pool_unavailable/),
    ]);
    expect((await decide(edge.url, secret, body)).status).toBe(200);
    await new Promise((r) => setTimeout(r, ERROR_WINDOW_S * 1_000));
    await evaluate();
    expect(messages("server_errors")).toEqual([
      expect.stringMatching(/^\[FIRING\] server_errors/),
      expect.stringMatching(/^\[RESOLVED\] server_errors/),
    ]);
  });

  it("'Postgres unreachable': Postgres stalled → one FIRING (its state kept in Redis); resumed → one RESOLVED", async () => {
    proxy.pause();
    const stalled = await evaluate();
    expect(stalled.postgres).toMatch(/no answer within/);
    await evaluate();
    expect(messages("postgres_unreachable")).toEqual([
      expect.stringMatching(/^\[FIRING\] postgres_unreachable/),
    ]);

    proxy.resume();
    const back = await evaluate();
    expect(back.postgres).toBeNull();
    expect(messages("postgres_unreachable")).toEqual([
      expect.stringMatching(/^\[FIRING\] postgres_unreachable/),
      expect.stringMatching(/^\[RESOLVED\] postgres_unreachable/),
    ]);
    // Its history is written to Postgres with the others once it answers again.
    const list = await fetch(`${edge.url}/internal/alerts`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const { data } = (await list.json()) as { data: { alert: string; state: string; notified: string }[] };
    expect(data.find((i) => i.alert === "postgres_unreachable")).toMatchObject({
      state: "resolved",
      notified: "resolved",
    });
  });
});
