/** Every batch object lives under this prefix of the BATCHES bucket (the lifecycle rule's, docs/deploy.md). */
export const BATCHES_ROOT = "batches/";
/** Where a batch's objects live in the BATCHES bucket. */
export const batchPrefix = (batchId: string) => `batches/${batchId}/`;
export const inputKey = (batchId: string, chunk: number) => `batches/${batchId}/input/${chunk}.jsonl`;
export const resultKey = (batchId: string, chunk: number) => `batches/${batchId}/results/${chunk}.jsonl`;

/** Deletes every object of a batch (inputs and results), page by page. */
export async function deleteBatchObjects(bucket: R2Bucket, batchId: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix: batchPrefix(batchId), cursor });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
}
