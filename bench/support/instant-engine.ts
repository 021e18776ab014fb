import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Answers every score call at once with a uniform distribution (no signature check: not the edge's cost). */
export async function instantEngine(): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.url === "/readyz") return void res.writeHead(200).end("ok");
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const answers = body.questions.map((q: { id: string }) => ({
      id: q.id,
      answer: { type: "check", probability: 0.5, confidence: 0, abstained: false },
    }));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        model: body.model,
        calibration: "cal-20261121-0",
        answers,
        meter: { tokens_evaluated: 1, tokens_reused: 0 },
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(() => r())) };
}
