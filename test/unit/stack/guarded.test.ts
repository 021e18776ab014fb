// The local fakes run inside `npm start` and the test runner's global setup: a handler that rejects (a caller
// that aborts mid-body) must not become an unhandled rejection there (CI 2026-11-26: `Error: aborted`, then
// the whole integration run ended with no summary).
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { guarded } from "../../../scripts/stack/guarded";
import { readBody } from "../../../scripts/stack/read-body";

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

async function listen(handler: Parameters<typeof guarded>[0]): Promise<string> {
  server = createServer(guarded(handler));
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("guarded: a local server's request listener", () => {
  it("a caller that aborts mid-body leaves no unhandled rejection, and the server answers the next call", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    let entered = false;
    let failed: unknown;
    const url = await listen(async (req, res) => {
      entered = true;
      try {
        res.end(await readBody(req));
      } catch (e) {
        failed = e;
        throw e;
      }
    });
    try {
      const cut = request(`${url}/`, { method: "POST", headers: { "content-length": "1000" } });
      cut.on("error", () => {});
      cut.write("only part of the body");
      await expect.poll(() => entered).toBe(true);
      cut.destroy();
      await expect.poll(() => failed).toBeInstanceOf(Error);
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
      const next = await fetch(`${url}/`, { method: "POST", body: "whole" });
      expect(await next.text()).toBe("whole");
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("a handler that throws before answering gives a 500 with a JSON error", async () => {
    const url = await listen(() => {
      throw new Error("backend down");
    });
    const res = await fetch(url);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal", message: "Error: backend down" });
  });
});
