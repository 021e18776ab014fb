// Issue 50 item 7, "left-over batch objects": an upload killed mid-stream, a result chunk written after its
// batch was deleted, and parallel uploads that all pass the count check before the lock left R2 objects no row
// points to and no cap counts. "Write a pending row before streaming, sweep orphans."
import { env } from "cloudflare:test";
import { ulid } from "ulid";
import { describe, expect, it } from "vitest";
import type { BatchRunnerDeps } from "../../../workers/batches/runner";
import { runBatchSlice } from "../../../workers/batches/runner";
import { sweepBatches } from "../../../workers/batches/sweep";
import type { Env } from "../../../workers/env";
import { insertPendingBatch } from "../../../workers/stores/batch-uploads";
import { line, newAccount, quietCall, quietEnv, quietUpload, runnerDeps } from "../../support/batch-runner";
import { fixedCheckEngine } from "../../support/calibrations";

const workerEnv = env as unknown as Env;
const objectsOf = async (id: string) =>
  (await workerEnv.BATCHES.list({ prefix: `batches/${id}/` })).objects.map((o) => o.key);

/** A JSONL body as a stream that notes whether the Worker read it at all. */
function watchedBody(lines: string[]) {
  const seen = { read: false };
  const bytes = new TextEncoder().encode(`${lines.join("\n")}\n`);
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        seen.read = true;
        c.enqueue(bytes);
        c.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, seen };
}

describe("issue 50 item 7: every batch object in R2 has a row the caps count and the sweep sees", () => {
  it("parallel uploads: a pending row is written under the lock before streaming, so at most 3 bodies are ever read into R2", async () => {
    const a = await newAccount("test", 0);
    const uploads = Array.from({ length: 6 }, (_, i) => watchedBody([line(i)]));
    const answers = await Promise.all(
      uploads.map(({ body }) =>
        quietCall("POST", "/v1/batches", {
          bearer: a.secret,
          body,
          headers: { "content-type": "application/jsonl" },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
    // A refused upload was refused before its body was read: nothing of it ever reached R2.
    expect(uploads.filter((u) => u.seen.read).length).toBe(3);
  });

  it("an upload killed mid-stream (objects, no row): the sweep deletes its objects after the grace period, and keeps a batch's", async () => {
    const killed = `batch_${ulid(Date.now() - 2 * 3_600_000)}`; // past the sweep's one-hour grace
    const recent = `batch_${ulid(Date.now())}`;
    await workerEnv.BATCHES.put(`batches/${killed}/input/0.jsonl`, "{}");
    await workerEnv.BATCHES.put(`batches/${recent}/input/0.jsonl`, "{}");
    const a = await newAccount("test", 0);
    const kept = await quietUpload(a.secret, [line(0)]);
    await sweepBatches(quietEnv); // (its kicks of runners are no-ops here)
    expect(await objectsOf(killed)).toEqual([]);
    expect(await objectsOf(recent)).toHaveLength(1); // still within the grace period
    expect(await objectsOf(kept)).toHaveLength(1);
  });

  it("an upload killed mid-stream after its row was written: the cap counts it meanwhile; once idle, the sweep deletes row and objects", async () => {
    const a = await newAccount("test", 0);
    const deps = runnerDeps(fixedCheckEngine(0.5));
    const ids = [0, 1, 2].map(() => `batch_${ulid()}`);
    for (const id of ids) {
      const now = Date.now();
      const caps = { active: 3, bytes: 1024 ** 3 };
      const pending = { id, accountId: a.accountId, keyId: "k", mode: "test" as const, bytes: 0 };
      expect(
        await insertPendingBatch(deps.db, { ...pending, createdAt: now, expiresAt: now + 1 }, caps),
      ).toBe(true);
      await workerEnv.BATCHES.put(`batches/${id}/input/0.jsonl`, "{}");
    }
    const refused = await quietCall("POST", "/v1/batches", {
      bearer: a.secret,
      body: `${line(0)}\n`,
      headers: { "content-type": "application/jsonl" },
    });
    expect(refused.status).toBe(429);
    await deps.db
      .sql()
      .query("UPDATE batches SET updated_at = now() - interval '16 minutes' WHERE id = ANY($1::text[])", [
        ids,
      ]);
    await sweepBatches(quietEnv);
    for (const id of ids) expect(await objectsOf(id)).toEqual([]);
    expect(await quietUpload(a.secret, [line(0)])).toMatch(/^batch_/);
  });

  it("a result chunk written after its batch was deleted is removed by the runner that wrote it", async () => {
    const a = await newAccount("test", 0);
    const id = await quietUpload(a.secret, [line(0), line(1)]);
    const bucket = workerEnv.BATCHES;
    // The delete lands between the runner's last look at the batch and its write of the chunk's results.
    const racing = {
      get: (key: string) => bucket.get(key),
      head: (key: string) => bucket.head(key),
      list: (o: R2ListOptions) => bucket.list(o),
      delete: (keys: string | string[]) => bucket.delete(keys),
      put: async (key: string, value: string) => {
        if (key.includes("/results/")) {
          await quietCall("POST", `/v1/batches/${id}/cancel`, { bearer: a.secret });
          expect((await quietCall("DELETE", `/v1/batches/${id}`, { bearer: a.secret })).status).toBe(200);
        }
        return bucket.put(key, value);
      },
    } as unknown as R2Bucket;
    const deps: BatchRunnerDeps = runnerDeps(fixedCheckEngine(0.5), { bucket: racing });
    const next = await runBatchSlice(deps, a.accountId, { failures: 0 }, 20_000);
    expect(await objectsOf(id), String(next)).toEqual([]);
  });
});
