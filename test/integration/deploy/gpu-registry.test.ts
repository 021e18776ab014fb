// The GPU pool discovered from the registry (issue 33): three workers join one after another without the
// edge being touched, one is killed, the edge stops routing to it when its heartbeat lapses; charged once.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REGISTRY_KEY } from "../../../schema/gpu-registry";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { balanceOf, credit, decide, seed, startEdge } from "../../support/money-harness";
import { stack } from "../../support/stack-db";

const HEARTBEAT_MS = 300; // adverts expire after 3 heartbeats (900 ms)
const REFRESH_MS = "200"; // the edge's GPU_REGISTRY_REFRESH_MS

interface Announced {
  proc: ChildProcess;
  url: string;
  calls: () => number;
}

function redis(): Redis {
  const s = stack();
  return new Redis({
    url: s.UPSTASH_REDIS_REST_URL,
    token: s.UPSTASH_REDIS_REST_TOKEN,
    automaticDeserialization: false,
  });
}

const children: ChildProcess[] = [];
/** A stand-in worker in its own process, announcing itself with the real announcer. */
function join(klass: string): Promise<Announced> {
  const s = stack();
  const proc = spawn(process.execPath, ["--import", "tsx", "test/support/announced-stand-in.ts"], {
    env: {
      ...process.env,
      UPSTASH_REDIS_REST_URL: s.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: s.UPSTASH_REDIS_REST_TOKEN,
      SVC_ANNOUNCE_INTERVAL_MS: String(HEARTBEAT_MS),
      STAND_IN_CLASS: klass,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(proc);
  let calls = 0;
  return new Promise((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`stand-in exited ${code}`)));
    createInterface({ input: proc.stdout! }).on("line", (line) => {
      const [what, value] = line.split(" ");
      if (what === "calls") calls = Number(value);
      if (what === "url") resolve({ proc, url: value!, calls: () => calls });
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let edge: EdgeWorker;
beforeAll(async () => {
  await redis().del(REGISTRY_KEY);
  // No GPU_POOL_URLS: the edge knows no worker but what the registry says.
  edge = await startEdge({ bindings: { GPU_REGISTRY_REFRESH_MS: REFRESH_MS } });
});
afterAll(async () => {
  await edge?.stop();
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await redis().del(REGISTRY_KEY);
});

describe("GPU pool from the registry", () => {
  it("three workers join with no edge change, one is killed and stops receiving calls at its expiry; charged once", async () => {
    const acct = await seed();
    const secret = acct.keys[0]!.secret;
    await credit(edge.url, acct.accountId, 100_000_000);

    // Nobody announced: no capacity.
    expect((await decide(edge.url, secret)).json).toMatchObject({ error: { code: "no_capacity" } });

    const a = await join("cpu-a");
    await sleep(Number(REFRESH_MS) * 2);
    // The isolate's copy is refreshed off the request path: within two calls the new worker is used.
    let first = await decide(edge.url, secret);
    if (first.status !== 200) first = await decide(edge.url, secret);
    expect(first.status).toBe(200);
    // The stand-in reports its count over its stdout every 20 ms: wait for the report, not for time.
    await expect.poll(() => a.calls()).toBeGreaterThan(0);

    const b = await join("cpu-a");
    const c = await join("cpu-a");
    await sleep(Number(REFRESH_MS) * 2);
    for (let round = 0; round < 10 && (b.calls() === 0 || c.calls() === 0); round++) {
      const batch = await Promise.all(Array.from({ length: 6 }, () => decide(edge.url, secret)));
      expect(batch.map((r) => (r.status === 200 ? 200 : r.text))).toEqual(Array(6).fill(200));
    }
    expect([a.calls(), b.calls(), c.calls()].every((n) => n > 0)).toBe(true);

    // b freezes (SIGSTOP: its port still accepts connections, nothing answers, no heartbeat): the hardest kill.
    b.proc.kill("SIGSTOP");
    await sleep(HEARTBEAT_MS * 3 + Number(REFRESH_MS) * 2);
    const before = (await balanceOf(edge.url, secret)).balance_micro_cents as number;
    const started = Date.now();
    const after = await Promise.all(Array.from({ length: 9 }, () => decide(edge.url, secret)));
    const elapsed = Date.now() - started;
    expect(after.map((r) => r.status)).toEqual(Array(9).fill(200));
    // A call sent to the frozen worker would wait out the GPU deadline (≥ 10 s): none did.
    expect(elapsed).toBeLessThan(8_000);
    const charged = after.reduce(
      (s, r) => s + (r.json.usage as { charge_micro_cents: number }).charge_micro_cents,
      0,
    );
    expect((await balanceOf(edge.url, secret)).balance_micro_cents).toBe(before - charged);
    // Its advert is still stored (nobody withdrew it): the edge ignored it because it expired.
    const stored = await redis().hget<string>(REGISTRY_KEY, b.url);
    expect(Number(/"expires_at":(\d+)/.exec(stored ?? "")?.[1])).toBeLessThan(Date.now());
    b.proc.kill("SIGKILL");

    // A worker that stops cleanly (SIGTERM) withdraws its advert at once.
    a.proc.kill("SIGTERM");
    await new Promise((r) => a.proc.once("exit", r));
    expect(await redis().hget(REGISTRY_KEY, a.url)).toBeNull();
    const last = await decide(edge.url, secret);
    expect(last.status).toBe(200);
  });
});
