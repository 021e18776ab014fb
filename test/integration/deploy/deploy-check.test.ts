// The pre-flight's reachability half against the local stack: Upstash answers its PING, the GPU registry's
// live workers are listed (versions × class), a Postgres host that does not answer is named without its password.
import { Redis } from "@upstash/redis";
import { afterAll, describe, expect, it } from "vitest";
import { Announcer } from "../../../gpu-worker/src/announce";
import { REGISTRY_KEY } from "../../../schema/gpu-registry";
import { checkReachable } from "../../../scripts/deploy-check";
import { stack } from "../../support/stack-db";

const SECRET = "deploy-check-pool-secret";
afterAll(async () => {
  const s = stack();
  await new Redis({ url: s.UPSTASH_REDIS_REST_URL, token: s.UPSTASH_REDIS_REST_TOKEN }).del(REGISTRY_KEY);
});

describe("deploy:check reachability", () => {
  it("lists the registry's live workers and names an unreachable database without its password", async () => {
    const s = stack();
    const announcer = new Announcer(
      {
        url: "https://svc-gpu-worker-0.gpu.svc.example.com",
        redisUrl: s.UPSTASH_REDIS_REST_URL,
        redisToken: s.UPSTASH_REDIS_REST_TOKEN,
        secret: SECRET,
        intervalMs: 5_000,
      },
      () => ({
        numerics_class: "cuda-sm90-nlc3.22.1",
        models: ["svc-1.4.0"],
        in_flight: 0,
        queue_depth: 0,
        sequences: 8,
        queue_max: 64,
      }),
    );
    await new Redis({ url: s.UPSTASH_REDIS_REST_URL, token: s.UPSTASH_REDIS_REST_TOKEN }).del(REGISTRY_KEY);
    await announcer.announce();
    const rows = await checkReachable({
      UPSTASH_REDIS_REST_URL: s.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: s.UPSTASH_REDIS_REST_TOKEN,
      GPU_SIGNING_SECRET: SECRET,
      DATABASE_URL: "postgresql://svc:hunter2-password@127.0.0.1:1/svc",
    });
    expect(rows.find((r) => r.name === "GPU registry")).toMatchObject({
      status: "ok",
      why: "1 live: https://svc-gpu-worker-0.gpu.svc.example.com (cuda-sm90-nlc3.22.1: svc-1.4.0)",
    });
    expect(rows.find((r) => r.name === "UPSTASH_REDIS_REST_URL")).toBeUndefined();
    expect(rows.find((r) => r.name === "DATABASE_URL")?.status).toBe("unreachable");
    expect(JSON.stringify(rows)).not.toContain("hunter2");
    await announcer.stop();
  });
});
