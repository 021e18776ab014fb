import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  SvcClient,
  signWebhook,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  webhooks,
} from "../../../sdk/src/index";

// Known vectors, computed outside the SDK (Python's hmac and `openssl dgst -sha256 -hmac`): HMAC-SHA256 keyed
// with the `whsec_…` string's UTF-8 bytes over "<t>.<raw body>".
const SECRET = "whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e8FH";
const ROTATED = "whsec_rotated0000000000000000000000000";
const T = 1795600000;
const BODY =
  '{"id":"evt_01JD0000000000000000000000","object":"event","type":"batch.completed","created":1795600000,"data":{"object":{"id":"batch_01JD0000000000000000000000","object":"batch","status":"completed","paused_reason":null,"resumes_at":null,"mode":"live","model":"svc-1","counts":{"total":2,"done":2,"failed":0},"usage":{"input_tokens":40,"charge_micro_cents":200},"created":1795599000,"started":1795599001,"finished":1795599990,"expires_at":1795685400,"results_expire_at":1798191990,"failure":null}}}';
const SIG = "b47052a6218243a4d0d72fde0eb6f04ca253be2a776b342e3b027dbf6fd8d319";
const SIG_ROTATED = "ffd64af2118601a04496d2bdd731d2413b06c2e5655fbdf123ba1dd20e87bc43";
const UTF8_BODY = '{"id":"evt_x","object":"event","note":"café ✓"}';
const UTF8_SIG = "f36eedee117e31f68ff33f2c0214f9ec7c337d9fab7048f63683a9a56de1065d";

const header = (...v1: string[]) => [`t=${T}`, ...v1.map((s) => `v1=${s}`)].join(",");
const at = { now: T + 10 };

async function rejection(p: Promise<unknown>): Promise<WebhookVerificationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  return err as WebhookVerificationError;
}

describe('webhooks.verify: svc-signature t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>', () => {
  it("a valid signature answers the parsed event, typed", async () => {
    const event = await webhooks.verify(BODY, header(SIG), SECRET, at);
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    expect(event).toMatchObject({ id: "evt_01JD0000000000000000000000", type: "batch.completed" });
    if (event.type !== "batch.completed") throw new Error(`not a batch event: ${event.type}`);
    expect(event.data.object.counts).toEqual({ total: 2, done: 2, failed: 0 });
  });

  it("the raw body may be bytes (a Uint8Array, an ArrayBuffer); the secret is UTF-8 bytes as shown", async () => {
    const bytes = new TextEncoder().encode(UTF8_BODY);
    expect(await verifyWebhook(bytes, header(UTF8_SIG), SECRET, at)).toMatchObject({ note: "café ✓" });
    expect(await verifyWebhook(bytes.buffer as ArrayBuffer, header(UTF8_SIG), SECRET, at)).toMatchObject({
      id: "evt_x",
    });
    expect(await verifyWebhook(UTF8_BODY, header(UTF8_SIG), SECRET, at)).toMatchObject({ id: "evt_x" });
  });

  it("a wrong secret is signature_mismatch", async () => {
    const err = await rejection(webhooks.verify(BODY, header(SIG), "whsec_wrong", at));
    expect(err.code).toBe("signature_mismatch");
  });

  it("a tampered body (one byte, or re-serialised JSON) is signature_mismatch", async () => {
    const tampered = BODY.replace('"done":2', '"done":3');
    expect((await rejection(webhooks.verify(tampered, header(SIG), SECRET, at))).code).toBe(
      "signature_mismatch",
    );
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect((await rejection(webhooks.verify(reserialised, header(SIG), SECRET, at))).code).toBe(
      "signature_mismatch",
    );
  });

  it("a timestamp more than 300 s from now, either way, is timestamp_out_of_tolerance; toleranceSeconds widens it", async () => {
    for (const now of [T + 301, T - 301]) {
      const err = await rejection(webhooks.verify(BODY, header(SIG), SECRET, { now }));
      expect(err.code).toBe("timestamp_out_of_tolerance");
    }
    expect((await webhooks.verify(BODY, header(SIG), SECRET, { now: T + 300 })).id).toMatch(/^evt_/);
    expect(
      (await webhooks.verify(BODY, header(SIG), SECRET, { now: T + 3600, toleranceSeconds: 3600 })).id,
    ).toMatch(/^evt_/);
  });

  it("the signature is checked before the time: a changed t breaks it (t is signed)", async () => {
    const moved = `t=${T + 1},v1=${SIG}`;
    expect((await rejection(webhooks.verify(BODY, moved, SECRET, at))).code).toBe("signature_mismatch");
  });

  it("several v1 entries: any match passes (a rotated secret), none matching fails", async () => {
    const bogus = "00".repeat(32);
    expect((await webhooks.verify(BODY, header(bogus, SIG_ROTATED, SIG), SECRET, at)).id).toMatch(/^evt_/);
    expect((await webhooks.verify(BODY, header(SIG, SIG_ROTATED), ROTATED, at)).id).toMatch(/^evt_/);
    expect((await rejection(webhooks.verify(BODY, header(bogus, "zz", SIG.slice(2)), SECRET, at))).code).toBe(
      "signature_mismatch",
    );
  });

  it("entries other than t and v1 are ignored; spaces around entries are allowed", async () => {
    const h = ` t=${T} , v0=${SIG_ROTATED}, v1=${SIG} `;
    expect((await webhooks.verify(BODY, h, SECRET, at)).id).toMatch(/^evt_/);
  });

  it("a missing header, a malformed one, an empty secret: each has its code", async () => {
    const cases: Array<[string | null | undefined, string, string]> = [
      [null, SECRET, "missing_signature"],
      ["", SECRET, "missing_signature"],
      [`v1=${SIG}`, SECRET, "malformed_signature"],
      [`t=${T}`, SECRET, "malformed_signature"],
      [`t=soon,v1=${SIG}`, SECRET, "malformed_signature"],
      ["garbage", SECRET, "malformed_signature"],
      [header(SIG), "", "missing_secret"],
    ];
    for (const [h, secret, code] of cases)
      expect((await rejection(webhooks.verify(BODY, h, secret, at))).code, String(h)).toBe(code);
  });

  it("a signed body that is not a JSON object is invalid_payload; so is a parsed object passed as the payload", async () => {
    const notJson = "not json";
    const signed = await signWebhook(notJson, SECRET, { timestamp: T });
    expect((await rejection(webhooks.verify(notJson, signed, SECRET, at))).code).toBe("invalid_payload");
    const parsed = JSON.parse(BODY) as unknown as string;
    expect((await rejection(webhooks.verify(parsed, header(SIG), SECRET, at))).code).toBe("invalid_payload");
  });
});

describe("webhooks.sign: the header the service sends, for testing an endpoint", () => {
  it("gives the known vector, and verify accepts what sign made", async () => {
    expect(await webhooks.sign(BODY, SECRET, { timestamp: T })).toBe(`t=${T},v1=${SIG}`);
    const fresh = await webhooks.sign(UTF8_BODY, SECRET);
    expect(fresh).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
    expect((await webhooks.verify(UTF8_BODY, fresh, SECRET)).id).toBe("evt_x");
  });

  it("is also `client.webhooks`, with the header's name and the default tolerance", () => {
    const client = new SvcClient({ baseUrl: "http://api.test" });
    expect(client.webhooks).toBe(webhooks);
    expect([webhooks.header, webhooks.toleranceSeconds]).toEqual(["svc-signature", 300]);
  });
});

describe("sdk/README.md's Webhooks example runs as written (it needs no API)", () => {
  it("a signed call is answered 204, a forged one 400 signature_mismatch", async () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
    const section = readFileSync(join(root, "sdk/README.md"), "utf8").split("## Webhooks")[1] ?? "";
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const dir = join(root, ".cache/sdk-readme");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `webhooks-${process.pid}-${Date.now()}.ts`);
    writeFileSync(
      file,
      `${code.replaceAll('"@svc/sdk"', JSON.stringify(join(root, "sdk/src/index.ts")))}\nexport {};\n`,
    );
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      await import(file);
      expect(log.mock.calls).toEqual([
        ["batch.completed", "batch_1", { total: 2, done: 2, failed: 0 }],
        [204, "signature_mismatch"],
      ]);
    } finally {
      log.mockRestore();
      rmSync(file, { force: true });
    }
  });
});
