import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ulid } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbEnv } from "../../../workers/stores/db";
import type { UsageEvent } from "../../../workers/stores/usage";
import { usageLog } from "../../../workers/stores/usage";
import { expectedRollups, readRollups, usageEvent, usageTargets } from "../../support/usage-events";

// An HTTP endpoint in front of the bridge that hangs up on the first `drops` requests (a lost connection
// before the database saw anything), then forwards.
let drops = 0;
let forwarded = 0;
let url = "";
const server = createServer(async (req, res) => {
  forwarded += 1;
  if (drops > 0) {
    drops -= 1;
    req.socket.destroy();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
  ) as Record<string, string>;
  const upstream = await fetch(target, { method: "POST", headers, body: Buffer.concat(chunks) });
  res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
});
let target = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sql`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the usage log retries a write lost on the way", () => {
  it("two lost connections, then the write lands once and is counted once", async () => {
    const env = await usageTargets()[0]!.env();
    target = env.NEON_HTTP_ENDPOINT!;
    const flaky: DbEnv = { ...env, NEON_HTTP_ENDPOINT: url };
    const acc = `acc_${ulid()}`;
    const e = usageEvent(acc, Date.now());
    drops = 2;
    await usageLog(flaky).record(e);
    expect(drops).toBe(0);
    await usageLog(flaky).record(e); // a later duplicate adds nothing
    expect(await readRollups(env, acc)).toEqual(expectedRollups([e]));
    drops = 3;
    await expect(usageLog(flaky).record(usageEvent(acc, Date.now()))).rejects.toThrow();
  });

  it("events recorded within the batch window land in one statement, each counted once", async () => {
    const env = await usageTargets()[0]!.env();
    target = env.NEON_HTTP_ENDPOINT!;
    const log = usageLog({ ...env, NEON_HTTP_ENDPOINT: url }, { windowMs: 200, maxEvents: 100 });
    const acc = `acc_${ulid()}`;
    const events = Array.from({ length: 12 }, (_, i) =>
      usageEvent(acc, Date.now() - i * 3_600_000, { key_id: i % 2 ? "key_A" : "key_B" }),
    );
    forwarded = 0;
    await Promise.all([...events, events[0]!, events[5]!].map((e) => log.record(e)));
    expect(forwarded).toBe(1);
    expect(await readRollups(env, acc)).toEqual(expectedRollups(events));
  });

  it("a full batch is written at once; a batch the database refuses is written event by event", async () => {
    const env = await usageTargets()[0]!.env();
    target = env.NEON_HTTP_ENDPOINT!;
    const log = usageLog({ ...env, NEON_HTTP_ENDPOINT: url }, { windowMs: 60_000, maxEvents: 3 });
    const acc = `acc_${ulid()}`;
    const good = [usageEvent(acc, Date.now()), usageEvent(acc, Date.now())];
    const bad = { ...usageEvent(acc, Date.now()), mode: "neither" } as unknown as UsageEvent;
    forwarded = 0;
    const outcomes = await Promise.allSettled([good[0]!, bad, good[1]!].map((e) => log.record(e)));
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(forwarded).toBe(4); // the refused batch, then each event alone
    expect(await readRollups(env, acc)).toEqual(expectedRollups(good));
  });
});
