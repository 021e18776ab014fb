import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { READY_REQUEST_ID, signAnswer } from "../../schema/signing";
import { BENCH_GPU_SECRET } from "./funded-account";

/**
 * Answers every score call at once with a uniform distribution. No check of the call's signature (not the
 * edge's cost), but its answers are signed as a worker's are: the edge uses no other.
 */
export async function instantEngine(): Promise<{ url: string; stop: () => Promise<void> }> {
  let url = "";
  const signed = async (requestId: string, body: string) => ({
    "content-type": "application/json",
    ...(await signAnswer(BENCH_GPU_SECRET, { origin: url, requestId, body })),
  });
  const server = createServer(async (req, res) => {
    if (req.url === "/readyz") return void res.writeHead(200, await signed(READY_REQUEST_ID, "ok")).end("ok");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const answers = body.questions.map((q: { id: string }) => ({
      id: q.id,
      answer: { type: "check", probability: 0.5, confidence: 0, abstained: false },
      ...(body.distributions && { distribution: [0.5, 0.5] }),
    }));
    const answer = JSON.stringify({
      model: body.model,
      calibration: "cal-20261121-0",
      answers,
      meter: { tokens_evaluated: 1, tokens_reused: 0 },
    });
    res.writeHead(200, await signed(body.request_id, answer)).end(answer);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return { url, stop: () => new Promise((r) => server.close(() => r())) };
}
