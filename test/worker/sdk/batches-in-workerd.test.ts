// The SDK's batch and webhook parts inside workerd (the Workers runtime): Web Crypto for the signatures, web
// streams for uploads and results. The batch routes are a fetch stand-in here (they are not this branch's).
import { describe, expect, it } from "vitest";
import { type BatchLine, SvcClient, WebhookVerificationError, webhooks } from "../../../sdk/src/index";

// The known vector of the unit tier (test/unit/sdk/webhooks.test.ts), computed outside the SDK.
const SECRET = "whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH";
const T = 1795600000;
const BODY = '{"id":"evt_x","object":"event","note":"café ✓"}';
const SIG = "f36eedee117e31f68ff33f2c0214f9ec7c337d9fab7048f63683a9a56de1065d";

describe("@svc/sdk batches and webhooks run in a Worker (workerd)", () => {
  it("webhooks.verify accepts the known vector and rejects a wrong secret, with Web Crypto", async () => {
    const header = `t=${T},v1=${SIG}`;
    expect((await webhooks.verify(BODY, header, SECRET, { now: T })).id).toBe("evt_x");
    expect(await webhooks.sign(BODY, SECRET, { timestamp: T })).toBe(header);
    const err = await webhooks.verify(BODY, header, "whsec_wrong", { now: T }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WebhookVerificationError);
    expect(err).toMatchObject({ code: "signature_mismatch" });
  });

  it("batches.create sends an async iterable's JSONL; results are read from a stream in pieces", async () => {
    const sent: string[] = [];
    const line = (n: number): BatchLine => ({
      custom_id: `l-${n}`,
      body: { state: `text ${n}`, questions: { q: { type: "check", instructions: "ok?" } } },
    });
    async function* lines() {
      for (let n = 0; n < 3; n++) yield line(n);
    }
    const results = ["l-0", "l-1", "l-2"].map(
      (id) => `${JSON.stringify({ custom_id: id, status: 200, body: {} })}\n`,
    );
    const svc = new SvcClient({
      baseUrl: "http://batches.test",
      apiKey: "svc_test_k",
      fetch: async (_input, init) => {
        if (init?.method === "POST") {
          sent.push(await new Response(init.body).text());
          return Response.json({ id: "batch_x" }, { status: 201 });
        }
        const encoder = new TextEncoder();
        const pieces = results.join("").match(/[\s\S]{1,7}/g) ?? [];
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = pieces.shift();
            if (next === undefined) controller.close();
            else controller.enqueue(encoder.encode(next));
          },
        });
        return new Response(body, { headers: { "content-type": "application/jsonl" } });
      },
    });
    await svc.batches.create(lines());
    expect(sent).toEqual([[0, 1, 2].map((n) => `${JSON.stringify(line(n))}\n`).join("")]);
    const ids: string[] = [];
    for await (const l of svc.batches.results("batch_x")) ids.push(l.custom_id);
    expect(ids).toEqual(["l-0", "l-1", "l-2"]);
  });
});
