import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ALIASES } from "../../../schema/models";
import { startStack } from "../../../scripts/stack/start-stack";
import { readmeDecide } from "../../support/decide-fixtures";

const KEY = /^svc_(live|test)_([0-9A-Za-z]{34})([0-9A-Za-z]{6})$/;

describe("npm start (startStack), black-box over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-start-test-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answers /livez, seeds a demo account with a live and a test key, writes demo.json (with the local admin token) while it runs; data and token survive a restart", async () => {
    const first = await startStack({ dataDir, gpu: false });
    let demo: {
      account_id: string;
      base_url: string;
      live_key: string;
      test_key: string;
      admin_token: string;
    };
    try {
      expect((await fetch(`${first.baseUrl}/livez`)).status).toBe(200);
      const file = join(dataDir, "demo.json");
      demo = JSON.parse(readFileSync(file, "utf8"));
      expect(Object.keys(demo)).toEqual(["base_url", "account_id", "live_key", "test_key", "admin_token"]);
      expect(demo.base_url).toBe(first.baseUrl);
      expect(demo.account_id).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(demo.live_key).toMatch(KEY);
      expect(demo.live_key.startsWith("svc_live_")).toBe(true);
      expect(demo.test_key.startsWith("svc_test_")).toBe(true);
      // "GET /v1/key work[s] with any valid key": the seeded key authenticates against the running Worker.
      const key = await fetch(`${first.baseUrl}/v1/key`, {
        headers: { authorization: `Bearer ${demo.test_key}` },
      });
      expect(key.status).toBe(200);
      expect(await key.json()).toMatchObject({ object: "key", mode: "test", account_id: demo.account_id });
      // Issue 54: the operator token is random, kept in the data folder, and the one the Worker takes.
      expect(demo.admin_token).toMatch(/^[0-9a-f]{64}$/);
      expect(readFileSync(join(dataDir, "admin-token"), "utf8").trim()).toBe(demo.admin_token);
      expect(first.env.ADMIN_TOKEN).toBe(demo.admin_token);
      expect(first.env.CANARY_API_KEY).toBe(demo.test_key);
      const alerts = await fetch(`${first.baseUrl}/internal/alerts`, {
        headers: { authorization: `Bearer ${demo.admin_token}` },
      });
      expect(alerts.status).toBe(200);
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dataDir, "pg"))).toBe(true);
    // demo.json exists only while the stack runs; the keys stay in demo.last.json for the next start.
    expect(existsSync(join(dataDir, "demo.json"))).toBe(false);
    expect(JSON.parse(readFileSync(join(dataDir, "demo.last.json"), "utf8"))).toEqual(demo);

    const second = await startStack({ dataDir, gpu: false });
    try {
      expect(second.services.applied).toEqual([]);
      expect(second.demo).toMatchObject({
        account_id: demo.account_id,
        live_key: demo.live_key,
        test_key: demo.test_key,
        admin_token: demo.admin_token, // "a stable local ADMIN_TOKEN" across restarts
      });
      const key = await fetch(`${second.baseUrl}/v1/key`, {
        headers: { authorization: `Bearer ${demo.live_key}` },
      });
      expect(key.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it("with the GPU worker: resolves only once a decide is served by the GPU; demo.json appears only then; the first decide after it is a 200 from the GPU", async () => {
    const dir = mkdtempSync(join(dataDir, "gpu-"));
    const file = join(dir, "demo.json");
    // A demo.json left by an earlier run must not look like this start being ready.
    writeFileSync(file, JSON.stringify({ base_url: "http://127.0.0.1:1", account_id: "acc_stale" }));
    const lines: string[] = [];
    const servedLogged = () => lines.some((l) => /served by the GPU/.test(l));
    const seen: Array<{ file: boolean; served: boolean }> = [];
    const poll = setInterval(() => seen.push({ file: existsSync(file), served: servedLogged() }), 20);
    const stack = await startStack({ dataDir: dir, log: (l) => lines.push(l) }).finally(() =>
      clearInterval(poll),
    );
    try {
      const res = await readmeDecide(stack.baseUrl, stack.demo!.test_key);
      const body = await res.text();
      expect(res.status, body).toBe(200);
      expect(JSON.parse(body)).toMatchObject({
        object: "decision",
        served_by: "gpu",
        model: ALIASES["svc-1"],
        answers: { topic: { choice: "refund" } }, // the README's promise for the demo's pick
      });

      expect(stack.served).toMatchObject({ model: ALIASES["svc-1"] });
      expect(seen.some((s) => !s.file)).toBe(true); // the stale file went away while starting
      expect(seen.filter((s) => s.file && !s.served)).toEqual([]); // and came back only when served
      const demo = JSON.parse(readFileSync(file, "utf8"));
      expect(demo).toEqual(stack.demo);
      expect(demo.base_url).toBe(stack.baseUrl);
    } finally {
      await stack.stop();
    }
  });

  it("a GPU worker that cannot get ready fails the start with the reason and the fix, and writes no demo.json", async () => {
    const dir = mkdtempSync(join(dataDir, "nogpu-"));
    await expect(
      startStack({ dataDir: dir, gpuEnv: { SVC_MODEL_PATH: join(dir, "missing.gguf") } }),
    ).rejects.toThrow(
      /GPU worker did not become ready(.|\n)*model file not found(.|\n)*Fix: run `npm run setup`/,
    );
    expect(existsSync(join(dir, "demo.json"))).toBe(false);
  });

  it("the wait for readiness is bounded (readyTimeoutMs)", async () => {
    const dir = mkdtempSync(join(dataDir, "slow-"));
    const t0 = Date.now();
    await expect(startStack({ dataDir: dir, readyTimeoutMs: 1_500 })).rejects.toThrow(
      /GPU worker did not become ready: worker not ready within 1500 ms/,
    );
    expect(Date.now() - t0).toBeLessThan(60_000);
    expect(existsSync(join(dir, "demo.json"))).toBe(false);
  });
});
