// Issue 50 item 1, the batch half: "a key sees and manages the batches of its own mode". A test key (handed to
// CI, contractors, test environments) must never read, cancel, delete or download a live batch; a batch of the
// other mode answers exactly as one that does not exist. The console session sees all of its account's batches.
import { describe, expect, it } from "vitest";
import { REFUND_CHECK } from "../../support/calibrations";
import { consoleCall, signIn } from "../../support/console";
import { expectError } from "../../support/worker-http";

type Session = Awaited<ReturnType<typeof signIn>>;

const line = (n: number) =>
  JSON.stringify({
    custom_id: `m-${n}`,
    body: { state: { ticket: `Parcel ${n} is late.` }, questions: { refund: REFUND_CHECK } },
  });

async function key(s: Session, mode: "live" | "test"): Promise<string> {
  const res = await consoleCall("POST", "/v1/console/keys", {
    cookie: s.cookie,
    csrf: s.csrf,
    body: { name: `${mode}-key`, mode },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { secret: string }).secret;
}

async function upload(secret: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await consoleCall("POST", "/v1/batches", {
    bearer: secret,
    body: `${line(0)}\n${line(1)}\n`,
    headers: { "content-type": "application/jsonl", ...headers },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

const ids = async (res: Response) => ((await res.json()) as { data: { id: string }[] }).data.map((b) => b.id);

describe("issue 50 item 1: a key sees and manages only the batches of its own mode", () => {
  it("a test key cannot read, list, cancel, delete or download a live batch: each answers 404 batch_not_found as for an unknown id", async () => {
    const s = await signIn();
    const [live, test] = [await key(s, "live"), await key(s, "test")];
    const liveBatch = await upload(live);
    const testBatch = await upload(test);

    for (const [method, path] of [
      ["GET", `/v1/batches/${liveBatch}`],
      ["GET", `/v1/batches/${liveBatch}/results`],
      ["POST", `/v1/batches/${liveBatch}/cancel`],
      ["DELETE", `/v1/batches/${liveBatch}`],
    ] as const) {
      const unknown = await expectError(
        await consoleCall(method, path.replace(liveBatch, "batch_01JDUNKNOWNBATCH0000000000"), {
          bearer: test,
        }),
        404,
        "batch_not_found",
        "id",
      );
      const other = await expectError(
        await consoleCall(method, path, { bearer: test }),
        404,
        "batch_not_found",
        "id",
      );
      expect(other.message).toBe(
        String(unknown.message).replace("batch_01JDUNKNOWNBATCH0000000000", liveBatch),
      );
    }
    expect(await ids(await consoleCall("GET", "/v1/batches", { bearer: test }))).toEqual([testBatch]);
    // The live key likewise never sees the test batch; the live batch was not cancelled by the attempt.
    expect(await ids(await consoleCall("GET", "/v1/batches", { bearer: live }))).toEqual([liveBatch]);
    await expectError(
      await consoleCall("GET", `/v1/batches/${testBatch}`, { bearer: live }),
      404,
      "batch_not_found",
      "id",
    );
    const still = (await (await consoleCall("GET", `/v1/batches/${liveBatch}`, { bearer: live })).json()) as {
      status: string;
    };
    expect(still.status).not.toBe("cancelled");
  });

  it("the console session sees and manages both modes' batches of its account", async () => {
    const s = await signIn();
    const liveBatch = await upload(await key(s, "live"));
    const testBatch = await upload(await key(s, "test"));
    const listed = await ids(await consoleCall("GET", "/v1/console/batches", { cookie: s.cookie }));
    expect(listed).toEqual([testBatch, liveBatch]);
    const got = await consoleCall("GET", `/v1/console/batches/${liveBatch}`, { cookie: s.cookie });
    expect(got.status).toBe(200);
    const cancelled = await consoleCall("POST", `/v1/console/batches/${liveBatch}/cancel`, {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
  });

  it("a test key reusing a live batch's idempotency key with the same bytes is refused, never shown the live batch", async () => {
    const s = await signIn();
    const idem = `k-${crypto.randomUUID()}`;
    await upload(await key(s, "live"), { "idempotency-key": idem });
    const res = await consoleCall("POST", "/v1/batches", {
      bearer: await key(s, "test"),
      body: `${line(0)}\n${line(1)}\n`,
      headers: { "content-type": "application/jsonl", "idempotency-key": idem },
    });
    await expectError(res, 409, "idempotency_key_reused", "idempotency-key");
  });
});
