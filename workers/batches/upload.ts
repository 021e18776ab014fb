import { MAX_BATCH_BYTES, MAX_BATCH_LINES } from "../../schema/batches";
import { hex } from "../../schema/hex";
import { ApiError } from "../errors";
import { inputKey } from "./objects";
import { MAX_LINE_BYTES, type StoredLine, validateLine } from "./validate-line";

/** A chunk of input is written to R2 when it holds this many lines or bytes (a runner reads one at a time). */
export const CHUNK_LINES = 1000;
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** What an upload stored: lines per chunk, the totals, the body's SHA-256 (hex) and the model every line names. */
export interface StoredUpload {
  chunkLines: number[];
  total: number;
  bytes: number;
  sha256: string;
  /** The model name every line asked for; null when lines differ. */
  model: string | null;
}

/** 413 `body_too_large` of an upload past MAX_BATCH_BYTES. */
export const tooLarge = () =>
  new ApiError("body_too_large", {
    message: `A batch upload is at most ${MAX_BATCH_BYTES / 1024 / 1024} MB.`,
  });
const tooManyLines = () =>
  new ApiError("batch_too_many_lines", {
    param: "lines",
    message: `A batch holds at most ${MAX_BATCH_LINES.toLocaleString("en-US")} lines.`,
  });

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Reads a JSONL body as a stream, line by line (never whole: a Worker has 128 MB), validating each line with a
 * decide's rules and writing the validated lines to R2 in chunks as it goes. The first invalid line, too many
 * lines or too many bytes stop the read; what was written is deleted and the error thrown, so nothing is kept.
 * A final newline is optional; every other line must be a JSON object (an empty line is `invalid_json`).
 * `onChunk` runs after each chunk is written (the upload's row is touched: it is alive).
 */
export async function storeUpload(
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number | null,
  bucket: R2Bucket,
  batchId: string,
  maxLines: number = MAX_BATCH_LINES,
  onChunk: () => Promise<void> = async () => {},
): Promise<StoredUpload> {
  if (declaredLength !== null && declaredLength > MAX_BATCH_BYTES) {
    await body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const writer = new ChunkWriter(bucket, batchId, onChunk);
  const digest = new crypto.DigestStream("SHA-256");
  // Settles only when the stream closes; an aborted upload must not leave it rejected with no one listening.
  digest.digest.catch(() => {});
  const hashing = digest.getWriter();
  const seen = new Set<string>();
  const models = new Set<string>();
  let n = 0;
  let bytes = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;

  const takeLine = async (line: Uint8Array) => {
    const end =
      line.byteLength > 0 && line[line.byteLength - 1] === 0x0d ? line.byteLength - 1 : line.byteLength;
    if (n >= maxLines) throw tooManyLines();
    const stored = validateLine(line.subarray(0, end), n, seen);
    if (models.size < 2) models.add(stored.requested);
    n++;
    await writer.add(stored);
  };

  const reader = body?.getReader();
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_BATCH_BYTES) throw tooLarge();
      await hashing.write(value);
      let start = 0;
      for (let i = value.indexOf(0x0a); i !== -1; i = value.indexOf(0x0a, start)) {
        pending.push(value.subarray(start, i));
        await takeLine(concat(pending, pendingBytes + (i - start)));
        pending = [];
        pendingBytes = 0;
        start = i + 1;
      }
      if (start < value.byteLength) {
        pending.push(value.subarray(start));
        pendingBytes += value.byteLength - start;
        // A line longer than any valid one fails now, before more of it is held.
        if (pendingBytes > MAX_LINE_BYTES) await takeLine(concat(pending, pendingBytes));
      }
    }
    if (pendingBytes > 0) await takeLine(concat(pending, pendingBytes));
    if (n === 0)
      throw new ApiError("invalid_value", { param: "lines", message: "A batch needs at least one line." });
    await writer.flush();
    await hashing.close();
    const sha256 = hex(await digest.digest);
    const model = models.size === 1 ? [...models][0]! : null;
    return { chunkLines: writer.chunkLines, total: n, bytes, sha256, model };
  } catch (err) {
    await reader?.cancel().catch(() => {});
    await hashing.abort().catch(() => {});
    await writer.discard();
    throw err;
  }
}

/** Collects validated lines and writes them to R2 one chunk at a time. */
class ChunkWriter {
  readonly chunkLines: number[] = [];
  private lines: string[] = [];
  private size = 0;

  constructor(
    private readonly bucket: R2Bucket,
    private readonly batchId: string,
    private readonly onChunk: () => Promise<void>,
  ) {}

  async add(line: StoredLine): Promise<void> {
    const text = JSON.stringify(line);
    this.lines.push(text);
    this.size += text.length + 1;
    if (this.lines.length >= CHUNK_LINES || this.size >= CHUNK_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    await this.bucket.put(inputKey(this.batchId, this.chunkLines.length), this.lines.join("\n"));
    this.chunkLines.push(this.lines.length);
    this.lines = [];
    this.size = 0;
    await this.onChunk();
  }

  /** Deletes what was written (the upload failed: nothing is kept). */
  async discard(): Promise<void> {
    const keys = this.chunkLines.map((_, i) => inputKey(this.batchId, i));
    if (keys.length > 0) await this.bucket.delete(keys).catch(() => {});
  }
}
