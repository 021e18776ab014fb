// A batch (issue 42) as a client drives it: upload JSONL, poll until it finishes, read its results. The soak runs
// one during its traffic and faults (its lines' charges go into the money check); soak/batch.ts and
// bench/batch.ts use the same calls.
import { send } from "./client";

/** One line of a batch's results file, as the checks read it. */
export interface BatchLineResult {
  customId: string;
  status: number;
  /** The Decision's id (200) or the error's request id: the attempt the ledger and usage events name. */
  id?: string;
  charge: number;
  servedBy?: string;
}

/** A batch the harness uploaded, and what it answered at the end. */
export interface SoakBatch {
  account: string;
  accountId: string;
  id: string;
  /** The custom ids in upload order. */
  customIds: string[];
  status: string;
  counts: { total: number; done: number; failed: number };
  charge: number;
  /** ms from the upload's answer to the status read as finished. */
  wallMs: number;
  results: BatchLineResult[];
}

export interface BatchView {
  id: string;
  status: string;
  counts: { total: number; done: number; failed: number };
  usage: { input_tokens: number; charge_micro_cents: number };
}

export const FINISHED = new Set(["completed", "cancelled", "expired", "failed"]);

/** Short support tickets, one check question each: the cheapest real decide on `model`. */
export function ticketLines(
  n: number,
  model: string,
  prefix = "ticket",
): { jsonl: string; customIds: string[] } {
  const customIds = Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const jsonl = customIds
    .map((custom_id, i) =>
      JSON.stringify({
        custom_id,
        body: {
          model,
          state: `Order ${1000 + i} arrived broken. ${i % 2 ? "Refund me." : "Send another."}`,
          questions: { refund: { type: "check", instructions: "Does the customer ask for a refund?" } },
        },
      }),
    )
    .join("\n");
  return { jsonl, customIds };
}

const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** POST /v1/batches; throws unless 201. */
export async function uploadBatch(baseUrl: string, secret: string, jsonl: string): Promise<BatchView> {
  const res = await send(`${baseUrl}/v1/batches`, {
    method: "POST",
    headers: { ...auth(secret), "content-type": "application/jsonl" },
    body: jsonl,
  });
  if (res.status !== 201) throw new Error(`batch upload answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json as BatchView;
}

export async function getBatch(baseUrl: string, secret: string, id: string): Promise<BatchView> {
  const res = await send(`${baseUrl}/v1/batches/${id}`, { headers: auth(secret) });
  if (res.status !== 200) throw new Error(`batch read answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json as BatchView;
}

/**
 * Polls the batch until it is finished or `timeoutMs` passed (then returns what it last read). A read also
 * kicks a stalled runner (an edge restart, a lapsed alarm), as any client's poll does.
 */
export async function waitForBatch(
  baseUrl: string,
  secret: string,
  id: string,
  timeoutMs: number,
  everyMs = 500,
): Promise<BatchView> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const b = await getBatch(baseUrl, secret, id).catch(() => undefined);
    if (b && (FINISHED.has(b.status) || Date.now() > end)) return b;
    if (!b && Date.now() > end) throw new Error(`batch ${id} could not be read`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** GET /v1/batches/{id}/results, parsed line by line. */
export async function batchResults(baseUrl: string, secret: string, id: string): Promise<BatchLineResult[]> {
  const res = await send(`${baseUrl}/v1/batches/${id}/results`, { headers: auth(secret) });
  if (res.status !== 200) throw new Error(`batch results answered ${res.status}: ${res.text.slice(0, 500)}`);
  return res.text
    .split("\n")
    .filter((l) => l.length > 0)
    .map((l) => {
      const r = JSON.parse(l) as {
        custom_id: string;
        status: number;
        body?: { id?: string; served_by?: string; usage?: { charge_micro_cents?: number } };
        error?: { request_id?: string };
      };
      return {
        customId: r.custom_id,
        status: r.status,
        id: r.status === 200 ? r.body?.id : r.error?.request_id,
        charge: r.status === 200 ? (r.body?.usage?.charge_micro_cents ?? Number.NaN) : 0,
        servedBy: r.body?.served_by,
      };
    });
}

/** The checks every batch run makes on its results: one line per custom id, in order, each attempt once. */
export function batchResultProblems(b: SoakBatch): string[] {
  const out: string[] = [];
  if (b.status !== "completed")
    out.push(`batch ${b.id}: ${b.status}, not completed (${JSON.stringify(b.counts)})`);
  const got = b.results.map((r) => r.customId);
  if (got.length !== b.customIds.length || got.some((c, i) => c !== b.customIds[i]))
    out.push(`batch ${b.id}: ${got.length} results, not the ${b.customIds.length} custom ids in input order`);
  const ids = b.results.map((r) => r.id);
  if (ids.some((id) => !id) || new Set(ids).size !== ids.length)
    out.push(`batch ${b.id}: a result without an id, or an id answered twice`);
  const answered = b.results.filter((r) => r.status === 200);
  if (answered.some((r) => !Number.isSafeInteger(r.charge)))
    out.push(`batch ${b.id}: a 200 line without a charge`);
  const sum = answered.reduce((s, r) => s + r.charge, 0);
  if (sum !== b.charge) out.push(`batch ${b.id}: usage charge ${b.charge}, Σ the results' charges ${sum}`);
  if (answered.length !== b.counts.done || b.results.length - answered.length !== b.counts.failed)
    out.push(`batch ${b.id}: counts ${JSON.stringify(b.counts)} for ${answered.length} answered results`);
  return out;
}
