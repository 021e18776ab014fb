import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startStack } from "../../../scripts/stack/start-stack";

const KEY = /^svc_(live|test)_([0-9A-Za-z]{34})([0-9A-Za-z]{6})$/;

describe("npm start (startStack), black-box over HTTP", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-start-test-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answers /livez, seeds a demo account with a live and a test key, writes demo.json; data survives a restart", async () => {
    const first = await startStack({ dataDir, gpu: false });
    let demo: { account_id: string; base_url: string; live_key: string; test_key: string };
    try {
      expect((await fetch(`${first.baseUrl}/livez`)).status).toBe(200);
      const file = join(dataDir, "demo.json");
      demo = JSON.parse(readFileSync(file, "utf8"));
      expect(Object.keys(demo).sort()).toEqual(["account_id", "base_url", "live_key", "test_key"]);
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
    } finally {
      await first.stop();
    }
    expect(existsSync(join(dataDir, "pg"))).toBe(true);

    const second = await startStack({ dataDir, gpu: false });
    try {
      expect(second.services.applied).toEqual([]);
      expect(second.demo).toMatchObject({
        account_id: demo.account_id,
        live_key: demo.live_key,
        test_key: demo.test_key,
      });
      const key = await fetch(`${second.baseUrl}/v1/key`, {
        headers: { authorization: `Bearer ${demo.live_key}` },
      });
      expect(key.status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
