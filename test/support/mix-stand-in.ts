// A GPU-worker stand-in whose check answers the test chooses (issue 52's drift test): each check's P(yes) is the
// number after `p=` in the rendered state, for any version asked. Signed calls are verified like the real worker's.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ScoreRequest } from "../../schema/engine-protocol";
import { SignatureVerifier } from "../../schema/signing";
import { guarded } from "../../scripts/stack/guarded";
import { GPU_SECRET } from "./money-harness";
import { endSigned, endSignedReady } from "./signed-answer";

/** A running stand-in: its base URL and how to stop it. */
export interface MixStandIn {
  url: string;
  close(): Promise<void>;
}

/** Starts the stand-in on a free loopback port. */
export async function startMixStandIn(): Promise<MixStandIn> {
  let url = "";
  let verifier: SignatureVerifier | null = null;
  const server: Server = createServer(
    guarded(async (req, res) => {
      if (req.url === "/readyz") return endSignedReady(res, GPU_SECRET, url, "ok");
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      verifier ??= new SignatureVerifier(GPU_SECRET, url);
      const v = await verifier.verify(
        { method: "POST", path: "/v1/score", body },
        req.headers["x-svc-timestamp"] as string,
        req.headers["x-svc-signature"] as string,
      );
      if (!v.ok) return void res.writeHead(401).end();
      const parsed = ScoreRequest.parse(JSON.parse(body));
      const p = Number(/p=([0-9.]+)/.exec(parsed.state)?.[1] ?? "0.5");
      const answers = parsed.questions.map((q) => ({
        id: q.id,
        answer: { type: "check" as const, probability: p, confidence: Math.abs(2 * p - 1), abstained: false },
      }));
      await endSigned(
        res,
        GPU_SECRET,
        url,
        parsed.request_id,
        JSON.stringify({
          model: parsed.model,
          calibration: "cal-20261121-0",
          answers,
          meter: { tokens_evaluated: 1, tokens_reused: 0 },
        }),
      );
    }),
  );
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
