// client.batches over a real HTTP connection (Node's fetch to a node:http stand-in for the batch routes):
// what goes over the wire when an upload is streamed, and results read from a body sent in pieces.
import { createReadStream, mkdtempSync, openAsBlob, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatchLine, SvcClient } from "../../../sdk/src/index";

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
let resultsLines = 0;

function handle(req: IncomingMessage, res: ServerResponse) {
  if (req.method === "POST") {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ id: "batch_x" }));
    });
    return;
  }
  // GET …/results: `resultsLines` lines, written 1,000 at a time as the socket drains.
  res.writeHead(200, { "content-type": "application/jsonl" });
  let n = 0;
  const write = () => {
    while (n < resultsLines) {
      let chunk = "";
      for (const end = Math.min(resultsLines, n + 1000); n < end; n++)
        chunk += `${JSON.stringify({ custom_id: `l-${n}`, status: 200, body: { id: `req_${n}` } })}\n`;
      if (!res.write(chunk)) return void res.once("drain", write);
    }
    res.end();
  };
  write();
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const line = (n: number): BatchLine => ({
  custom_id: `l-${n}`,
  body: { state: `text ${n}`, questions: { q: { type: "check", instructions: "ok?" } } },
});

async function* lines(count: number): AsyncGenerator<BatchLine> {
  for (let n = 0; n < count; n++) yield line(n);
}

describe("batches.create over HTTP", () => {
  it("an async iterable goes out chunked (no content-length), every line intact and in order", async () => {
    received.length = 0;
    const svc = new SvcClient({ baseUrl, apiKey: "svc_test_k" });
    await svc.batches.create(lines(5_000));
    const [got] = received;
    expect(got?.headers["transfer-encoding"]).toBe("chunked");
    expect(got?.headers["content-type"]).toBe("application/jsonl");
    const sent = got?.body.split("\n") ?? [];
    expect(sent.pop()).toBe("");
    expect(sent).toHaveLength(5_000);
    expect(sent.map((l) => JSON.parse(l).custom_id)).toEqual(
      Array.from({ length: 5_000 }, (_, n) => `l-${n}`),
    );
  });

  it("an array goes out with its content-length", async () => {
    received.length = 0;
    const svc = new SvcClient({ baseUrl, apiKey: "svc_test_k" });
    await svc.batches.create([line(0), line(1)]);
    const expected = `${JSON.stringify(line(0))}\n${JSON.stringify(line(1))}\n`;
    expect(received[0]?.headers["content-length"]).toBe(String(Buffer.byteLength(expected)));
    expect(received[0]?.body).toBe(expected);
  });
});

describe("batches.create from a file", () => {
  it("fs.openAsBlob(path) goes with its length; a Node stream (fs.createReadStream) goes as it is, chunked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-batch-"));
    const path = join(dir, "lines.jsonl");
    const jsonl = [0, 1, 2].map((n) => `${JSON.stringify(line(n))}\n`).join("");
    writeFileSync(path, jsonl);
    try {
      received.length = 0;
      const svc = new SvcClient({ baseUrl, apiKey: "svc_test_k" });
      await svc.batches.create(await openAsBlob(path));
      await svc.batches.create(createReadStream(path));
      expect(
        received.map((r) => [r.body, r.headers["content-length"], r.headers["transfer-encoding"]]),
      ).toEqual([
        [jsonl, String(Buffer.byteLength(jsonl)), undefined],
        [jsonl, undefined, "chunked"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("batches.results over HTTP", () => {
  it("20,000 lines sent in pieces come out one by one, in order", async () => {
    resultsLines = 20_000;
    const svc = new SvcClient({ baseUrl, apiKey: "svc_test_k" });
    let n = 0;
    let inOrder = true;
    for await (const l of svc.batches.results("batch_x")) {
      inOrder &&= l.custom_id === `l-${n}`;
      n++;
    }
    expect([n, inOrder]).toEqual([20_000, true]);
  });
});
