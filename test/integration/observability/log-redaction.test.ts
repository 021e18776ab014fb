// Issue 43: the edge's log holds no secret and no content. The Worker in workerd against the test stack, its
// log lines captured to a file as `npm start` writes them (scripts/stack/edge-worker.ts), a representative run
// through sign-in, CSRF-protected calls, the keys page and decide, then every line read.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EdgeWorker } from "../../../scripts/stack/edge-worker";
import { type FakeEmail, startFakeEmail } from "../../../scripts/stack/fake-email";
import { scanLog } from "../../support/log-scan";
import {
  ADMIN_TOKEN,
  credit,
  type StandInGpu,
  startEdge,
  startStandInGpu,
} from "../../support/money-harness";

const CONSOLE_SECRET = "redaction-console-secret-0123456789abcdef";
const STATE = "Ticket 7731: my parcel from Quillfeather Ltd arrived crushed";
const QUESTION = "Does the customer mention Quillfeather by name?";

let edge: EdgeWorker | undefined;
let gpu: StandInGpu;
let email: FakeEmail;
let dir: string;
let logFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-log-redaction-"));
  logFile = join(dir, "edge.jsonl");
  [gpu, email] = await Promise.all([startStandInGpu("ok"), startFakeEmail()]);
  edge = await startEdge({
    gpuUrls: [gpu.url],
    logFile,
    bindings: {
      CONSOLE_SECRET,
      EMAIL_API_URL: email.url,
      EMAIL_API_KEY: email.apiKey,
      EMAIL_FROM: "svc <console@svc.test>",
    },
  });
});

afterAll(async () => {
  await edge?.stop();
  edge = undefined;
  await Promise.all([gpu?.close(), email?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...o.headers };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${edge!.url}${path}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : typeof o.body === "string" ? o.body : JSON.stringify(o.body),
    redirect: "manual",
  });
}

describe("issue 43: no line of the edge log holds a key, session or CSRF secret, or a state or question", () => {
  it("sign-in, CSRF-protected calls, the keys page, decide (live + test key, a 4xx, a replay), a batch: every line JSON with level and event, none with secret material", async () => {
    const address = `redaction-${Date.now()}@example.com`;
    expect((await call("POST", "/v1/console/auth/codes", { body: { email: address } })).status).toBe(202);
    const inbox = (await (await fetch(`${email.url}/__inbox?to=${encodeURIComponent(address)}`)).json()) as {
      data: { text: string }[];
    };
    const code = /\b(\d{8})\b/.exec(inbox.data[0]!.text)![1]!;
    const signIn = await call("POST", "/v1/console/sessions", { body: { email: address, code } });
    expect(signIn.status).toBe(201);
    const { csrf_token: csrf, account_id: accountId } = (await signIn.json()) as Record<string, string>;
    const cookieValue = /__Host-svc_session=([^;]+)/.exec(signIn.headers.get("set-cookie") ?? "")![1]!;
    const session = { cookie: `__Host-svc_session=${cookieValue}`, "x-svc-csrf": csrf! };

    // CSRF-protected calls: two keys made, one call refused for a wrong token.
    const made = async (mode: string) => {
      const res = await call("POST", "/v1/console/keys", { headers: session, body: { name: mode, mode } });
      expect(res.status).toBe(201);
      return (await res.json()) as { secret: string; id: string };
    };
    const live = await made("live");
    const test = await made("test");
    const wrongCsrf = `${csrf!.slice(0, -4)}AAAA`;
    const refused = await call("POST", "/v1/console/keys", {
      headers: { ...session, "x-svc-csrf": wrongCsrf },
      body: { name: "x", mode: "test" },
    });
    expect(refused.status).toBe(403);
    // The keys page and the list it reads.
    expect((await call("GET", "/console/keys", { headers: { cookie: session.cookie } })).status).toBe(200);
    expect((await call("GET", "/v1/console/keys", { headers: { cookie: session.cookie } })).status).toBe(200);

    await credit(edge!.url, accountId!, 1_000_000_000);
    const body = {
      state: STATE,
      questions: { brand: { type: "check", instructions: QUESTION } },
    };
    const decide = (secret: string, b: unknown, extra: Record<string, string> = {}) =>
      call("POST", "/v1/decide", { headers: { authorization: `Bearer ${secret}`, ...extra }, body: b });
    expect((await decide(live.secret, body, { "idempotency-key": "redaction-1" })).status).toBe(200);
    const replay = await decide(live.secret, body, { "idempotency-key": "redaction-1" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect((await decide(test.secret, body)).status).toBe(200);
    const bad = await decide(live.secret, {
      state: STATE,
      questions: { brand: { type: "guess", instructions: QUESTION } },
    });
    expect(bad.status).toBe(422);
    expect((await decide(`${live.secret.slice(0, -6)}000000`, body)).status).toBe(401);
    // A batch of the same body: its lines' own request lines, at batch priority, hold no state either.
    const upload = await fetch(`${edge!.url}/v1/batches`, {
      method: "POST",
      headers: { authorization: `Bearer ${live.secret}`, "content-type": "application/jsonl" },
      body: ["b-1", "b-2"].map((id) => `${JSON.stringify({ custom_id: id, body })}\n`).join(""),
    });
    expect(upload.status).toBe(201);
    const batchId = ((await upload.json()) as { id: string }).id;
    await expect
      .poll(
        async () => {
          const res = await fetch(`${edge!.url}/v1/batches/${batchId}`, {
            headers: { authorization: `Bearer ${live.secret}` },
          });
          return ((await res.json()) as { status: string }).status;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe("completed");
    await edge!.stop(); // every line written
    edge = undefined;

    const text = readFileSync(logFile, "utf8");
    const secrets = [
      live.secret,
      test.secret,
      cookieValue,
      csrf!,
      wrongCsrf,
      code,
      ADMIN_TOKEN,
      CONSOLE_SECRET,
    ];
    expect(scanLog(text, [...secrets, STATE, "Quillfeather", QUESTION])).toEqual([]);
    const lines = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines.filter((l) => l.event === "runtime_output"),
      "every line is the Worker's own logEvent",
    ).toEqual([]);
    const requests = lines.filter((l) => l.event === "request");
    const decides = requests.filter((l) => l.route === "decide");
    expect(decides.map((l) => [l.status, l.mode, l.idempotency, l.served_by])).toEqual([
      [200, "live", "new", "gpu"],
      [200, "live", "replay", "gpu"],
      [200, "test", null, "gpu"],
      [422, "live", null, null],
      [401, null, null, null],
    ]);
    expect(decides[0]).toMatchObject({ key_id: live.id, account_id: accountId, gpu_attempts: 1 });
    expect(decides[0]!.gpu_ms).toEqual(expect.any(Number));
    // "latency in ms (total and GPU), GPU attempts … priority (live / batch)": a batch line's too.
    const batchLines = requests.filter((l) => l.route === "batchLine");
    expect(batchLines).toHaveLength(2);
    for (const l of batchLines) {
      expect(l).toMatchObject({
        status: 200,
        key_id: live.id,
        account_id: accountId,
        mode: "live",
        served_by: "gpu",
        gpu_attempts: 1,
        priority: "batch",
      });
      expect(l.gpu_ms).toEqual(expect.any(Number));
      expect(l.latency_ms as number).toBeGreaterThanOrEqual(l.gpu_ms as number);
    }
    expect(requests.some((l) => l.status === 403 && l.error_code === "csrf_failed")).toBe(true);
    expect(requests.some((l) => l.route === "GET /console/*" && l.status === 200)).toBe(true);
  });
});
