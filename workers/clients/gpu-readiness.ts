import { z } from "zod";
import { READY_REQUEST_ID } from "../../schema/signing";
import { WorkerLoad } from "./gpu-load";
import { safeJson, signedBy, signedGet } from "./gpu-signed-call";

/** A worker's `/readyz` body (`gpu-worker/src/server.ts`). */
const ReadyAdvert = z.object({
  numerics_class: z.string(),
  models: z.array(z.string()),
  /** Per version, speed and queued work (issue 30); absent from older workers and stand-ins. */
  load: z.record(z.string(), WorkerLoad).optional(),
});

/** What a worker said it serves (`/readyz`, or learned from its answers): exact versions × numerics class. */
export interface Advert {
  /** Null: the worker reports no class (a stand-in, an old build). */
  numericsClass: string | null;
  /** Null: not yet known (learned from `/readyz`). */
  models: Set<string> | null;
}

/** What `/readyz` answered: ready or not, what the worker serves, and per version the load it reported. */
export interface Readiness {
  ready: boolean;
  advert: Advert;
  load: Record<string, WorkerLoad>;
}

/**
 * Asks the worker at `origin` for `/readyz` (a signed call; its answer must be signed too). Throws when the call
 * fails or a 200 is not signed by that worker; a body that is not an advert tells nothing of what it serves.
 */
export async function askReady(secret: string, origin: string, timeoutMs: number): Promise<Readiness> {
  const res = await signedGet(secret, origin, "/readyz", timeoutMs);
  const text = await res.text();
  if (res.ok && !(await signedBy(secret, origin, res, text, READY_REQUEST_ID))) throw new Error("unsigned");
  const body = ReadyAdvert.safeParse(safeJson(text));
  return {
    ready: res.ok,
    advert: body.success
      ? { numericsClass: body.data.numerics_class, models: new Set(body.data.models) }
      : { numericsClass: null, models: null },
    load: body.success ? (body.data.load ?? {}) : {},
  };
}
