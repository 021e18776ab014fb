// The local Neon bridge (scripts/stack/neon-bridge.ts) keeps an idle HTTP connection as long as workerd may
// reuse it: with Node's default 5 s, a query after a 15 s batch upload met a closed socket (503 maintenance).
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { startNeonBridge } from "../../../scripts/stack/neon-bridge";

describe("Neon bridge keep-alive", () => {
  it("an idle connection is kept about a minute, not Node's 5 s (workerd reuses a pooled one after a long upload)", async () => {
    const bridge = await startNeonBridge();
    try {
      const header = await new Promise<string | undefined>((resolve, reject) => {
        const req = request(
          `http://127.0.0.1:${bridge.port}/nothing`,
          { agent: false, headers: { connection: "keep-alive" } },
          (res) => {
            res.resume();
            res.on("end", () => resolve(String(res.headers["keep-alive"])));
          },
        );
        req.on("error", reject);
        req.end();
      });
      expect(header).toBe("timeout=65");
    } finally {
      await bridge.stop();
    }
  });
});
