/**
 * JSONL both ways: a batch's lines written out as an upload (streamed where the runtime can send a stream),
 * and an answer's body read back line by line as it arrives, never held whole.
 */
import type { BatchInput, BatchLine } from "./batch-types.js";
import { SvcError } from "./errors.js";
import { errorFromFailure } from "./response.js";
import type { StreamedBody, Upload } from "./transport.js";

/** The media type of a batch upload and of its results. */
export const JSONL = "application/jsonl";

/** Lines gathered into one chunk of a streamed upload (fewer, larger writes). */
const CHUNK_CHARS = 64 * 1024;

/**
 * The upload of `input`. Already written JSONL (a string, a Blob) and arrays are sent as they are or as a
 * Blob: length known, sent again on a retry. An iterable, async iterable or byte stream is streamed when
 * `stream` is true (it can be read once, so the call is never sent again), else gathered into a Blob first.
 */
export async function uploadOf(input: BatchInput, stream: boolean): Promise<Upload> {
  if (typeof input === "string") return replayable(input, new TextEncoder().encode(input).byteLength);
  if (isBlob(input)) return replayable(input, input.size);
  if (Array.isArray(input)) return blobUpload(new Blob((input as readonly BatchLine[]).map(jsonLine)));
  if (isByteStream(input)) {
    if (stream) return once(input);
    return blobUpload(await new Response(input).blob());
  }
  const lines = input as Items;
  if (stream) return once(linesStream(lines));
  const parts: Array<string | Uint8Array> = [];
  for await (const line of lines) parts.push(part(line));
  return blobUpload(new Blob(parts as unknown as ConstructorParameters<typeof Blob>[0]));
}

/**
 * True where fetch can send a stream as a request body: Node, Deno, Bun (the fetch spec's `duplex` check).
 * Browsers are left out: Chrome streams only over HTTP/2 and fails on HTTP/1.1, Firefox and Safari not at all.
 */
export function canStreamUploads(): boolean {
  const g = globalThis as { document?: unknown; importScripts?: unknown };
  if (g.document !== undefined || typeof g.importScripts === "function") return false;
  try {
    let duplexRead = false;
    const init = {
      method: "POST",
      body: new ReadableStream(),
      get duplex() {
        duplexRead = true;
        return "half";
      },
    };
    const hasContentType = new Request("http://stream.test/", init as RequestInit).headers.has(
      "content-type",
    );
    return duplexRead && !hasContentType;
  } catch {
    return false;
  }
}

/**
 * The JSON values of a JSONL body, one per non-empty line, as the bytes arrive. A pause longer than
 * `idleTimeoutMs` between two reads is a `timeout` error; a cut connection a `connection` error; a line that
 * is not JSON an `invalid_response` one. Leaving the loop early closes the connection.
 */
export async function* jsonLines<T>(
  streamed: StreamedBody,
  idleTimeoutMs: number,
  signal?: AbortSignal,
): AsyncGenerator<T, void, undefined> {
  const reader = streamed.body.getReader();
  const decoder = new TextDecoder();
  let rest = "";
  let lineNumber = 0;
  let finished = false;
  const parse = (text: string): T => {
    lineNumber++;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new SvcError(
        {
          type: "invalid_response",
          code: "invalid_jsonl_response",
          message: `Line ${lineNumber} of the answer is not JSON.`,
          status: 200,
        },
        { cause },
      );
    }
  };
  try {
    for (;;) {
      const { value, done } = await readWithin(reader, idleTimeoutMs, streamed, signal);
      if (done) break;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") yield parse(line);
    }
    rest += decoder.decode();
    finished = true;
    if (rest.trim() !== "") yield parse(rest);
  } finally {
    if (!finished) {
      streamed.cancel();
      await reader.cancel().catch(() => {});
    }
    streamed.release();
  }
}

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  ms: number,
  streamed: StreamedBody,
  signal: AbortSignal | undefined,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const idle = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      streamed.cancel();
      reject(new Error(`no bytes for ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([reader.read(), idle]);
  } catch (cause) {
    if (signal?.aborted) throw signal.reason;
    throw errorFromFailure(cause, timedOut);
  } finally {
    clearTimeout(timer);
  }
}

function jsonLine(line: BatchLine): string {
  return `${JSON.stringify(line)}\n`;
}

/** A line written out; bytes pass as they are (a Node stream, `fs.createReadStream(path)`, yields Buffers). */
function part(item: BatchLine | Uint8Array): string | Uint8Array {
  return item instanceof Uint8Array ? item : jsonLine(item);
}

/** Lines to write out, or (from a Node stream) bytes already written. */
type Items = Iterable<BatchLine | Uint8Array> | AsyncIterable<BatchLine | Uint8Array>;

function linesStream(lines: Items): ReadableStream<Uint8Array> {
  const it = Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = "";
      while (chunk.length < CHUNK_CHARS) {
        const next = await it.next();
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        const written = part(next.value);
        if (typeof written === "string") chunk += written;
        else {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.enqueue(written);
          return;
        }
      }
      controller.enqueue(encoder.encode(chunk));
    },
    async cancel() {
      await it.return?.();
    },
  });
}

const replayable = (body: string | Blob, bytes: number): Upload => ({
  contentType: JSONL,
  body: () => body,
  bytes,
  replayable: true,
});

const blobUpload = (blob: Blob): Upload => replayable(blob, blob.size);

function once(stream: ReadableStream<Uint8Array>): Upload {
  let used = false;
  return {
    contentType: JSONL,
    body: () => {
      if (used) throw new Error("a streamed upload can be sent only once");
      used = true;
      return stream;
    },
    replayable: false,
  };
}

function isBlob(input: unknown): input is Blob {
  return typeof Blob !== "undefined" && input instanceof Blob;
}

function isByteStream(input: unknown): input is ReadableStream<Uint8Array> {
  return (
    (typeof ReadableStream !== "undefined" && input instanceof ReadableStream) ||
    (typeof input === "object" && input !== null && typeof (input as ReadableStream).getReader === "function")
  );
}
