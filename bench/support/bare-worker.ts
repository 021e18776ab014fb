import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { wranglerSettings } from "../../scripts/stack/edge-worker";

/** The decide body every edge benchmark sends: one check question on a small state. */
export const DECIDE_BODY = JSON.stringify({
  state: { ticket: "The parcel arrived broken and I want my money back.", customer: { tier: "gold" } },
  questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
  fallback: "never",
});

/** A bare Hono handler in workerd (same compatibility settings as the edge): the baseline of every ratio. */
export async function bareWorker(): Promise<{ url: string; stop: () => Promise<void> }> {
  const out = await build({
    stdin: {
      contents: `import { Hono } from "hono";
        const app = new Hono();
        app.post("/v1/decide", async (c) => c.json({ ok: true, n: (await c.req.text()).length }));
        export default app;`,
      resolveDir: process.cwd(),
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    write: false,
  });
  const { compatibilityDate, compatibilityFlags } = wranglerSettings();
  const mf = new Miniflare({
    modules: [{ type: "ESModule", path: "index.js", contents: out.outputFiles[0]!.text }],
    compatibilityDate,
    compatibilityFlags,
    host: "127.0.0.1",
    port: 0,
  });
  const url = (await mf.ready).toString().replace(/\/$/, "");
  return { url, stop: () => mf.dispose() };
}
