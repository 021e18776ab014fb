import { errorText, logEvent } from "../observability/log";
import { chunkResults } from "../stores/batch-results";
import type { BatchRow } from "../stores/batch-rows";
import type { Database } from "../stores/db";
import { resultKey } from "./objects";

const utf8 = new TextEncoder();

/**
 * A batch's results as JSONL in input order, one chunk at a time (never all in memory): chunks already written
 * out come from R2; the chunk being run from Postgres (its finished lines only). Chunks run in order, so the
 * first chunk with neither is where the results end. A chunk written out while this reads is found in R2 on a
 * second look.
 */
export function streamResults(db: Database, bucket: R2Bucket, b: BatchRow): ReadableStream<Uint8Array> {
  let chunk = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        for (; chunk < b.chunks; ) {
          const written = await bucket.get(resultKey(b.id, chunk));
          if (written) {
            controller.enqueue(new Uint8Array(await written.arrayBuffer()));
            chunk++;
            return;
          }
          const lines = await chunkResults(db, b.id, chunk);
          if (lines.length === 0) {
            const late = await bucket.get(resultKey(b.id, chunk));
            if (!late) break;
            controller.enqueue(new Uint8Array(await late.arrayBuffer()));
            chunk++;
            return;
          }
          controller.enqueue(utf8.encode(lines.map((l) => `${l}\n`).join("")));
          chunk++;
          return;
        }
        controller.close();
      } catch (err) {
        logEvent("error", "batch_results_failed", { batch_id: b.id, chunk, error: errorText(err) });
        controller.error(err);
      }
    },
  });
}
