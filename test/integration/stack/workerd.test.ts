import { join } from "node:path";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, expect, it } from "vitest";
import { bundleWorker, wranglerSettings } from "../../../scripts/stack/edge-worker";
import { stack } from "../../support/stack-db";

// Inside workerd (no Node sockets): workers/stores/db.ts and @upstash/redis reach the stand-ins over
// fetch/WebSocket, exactly as the edge Worker does in `npm start` and in the worker test tier.
let mf: Miniflare;
let url: string;

beforeAll(async () => {
  const s = stack();
  const { compatibilityDate, compatibilityFlags } = wranglerSettings();
  mf = new Miniflare({
    modules: [
      {
        type: "ESModule",
        path: "probe.js",
        contents: await bundleWorker(join(__dirname, "../../support/stack-probe-worker.ts")),
      },
    ],
    compatibilityDate,
    compatibilityFlags,
    bindings: {
      DATABASE_URL: s.DATABASE_URL,
      NEON_WS_PROXY: s.NEON_WS_PROXY,
      NEON_HTTP_ENDPOINT: s.NEON_HTTP_ENDPOINT,
      UPSTASH_REDIS_REST_URL: s.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: s.UPSTASH_REDIS_REST_TOKEN,
    },
  });
  url = (await mf.ready).toString();
});

afterAll(async () => {
  await mf?.dispose();
});

it("from workerd: getSql (HTTP), withTransaction (WebSocket) commit + rollback, 23505, Upstash incr", async () => {
  const id = `acc_wd${Date.now()}`;
  const res = await fetch(`${url}?id=${id}`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    http: { id, a: ["a", "b"] },
    committed: { n: 1 },
    rolledBack: true,
    after: { n: 0 },
    duplicate: "23505",
    n: 1,
  });
});
