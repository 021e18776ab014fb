// vitest globalSetup for the worker and integration tiers: a throw-away stack (PGlite in memory + Neon
// bridge, redis-server without persistence + Upstash bridge), migrated, shared by the tier's test files.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startFakeStripe } from "../../scripts/stack/fake-stripe";
import { freePort } from "../../scripts/stack/free-port";
import { startServices } from "../../scripts/stack/services";
import { scanLog } from "../support/log-scan";
import type { StackProvided } from "./provided";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runLog = startRunLog();
  // The DATABASE_URL variant (real PostgreSQL) is opted into with STACK_DATABASE_URL, see .ci/run.
  const services = await startServices({ databaseUrl: process.env.STACK_DATABASE_URL ?? "", upstashUrl: "" });
  const stripe = await startFakeStripe();
  const controlPort = await freePort();
  // Issue 50 item 6: `/redirect?to=…` answers 307 to `to`; `/hits/<id>` counts the calls it gets (GET
  // `/hits/<id>/count` reads it): where a webhook delivery would land if it followed a redirect.
  const hits = new Map<string, number>();
  const control = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://control").pathname;
    if (path === "/redirect") {
      const to = new URL(req.url ?? "/", "http://control").searchParams.get("to") ?? "/";
      req.resume();
      res.writeHead(307, { location: to }).end();
      return;
    }
    const hit = /^\/hits\/([\w-]+)(\/count)?$/.exec(path);
    if (hit) {
      req.resume();
      if (!hit[2]) hits.set(hit[1]!, (hits.get(hit[1]!) ?? 0) + 1);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(hits.get(hit[1]!) ?? 0));
      return;
    }
    const action = req.method === "POST" ? req.url : undefined;
    const bridge = services.upstash;
    const run =
      action === "/upstash/stop" ? bridge?.stop() : action === "/upstash/start" ? bridge?.start() : undefined;
    if (!run) {
      res.writeHead(404).end();
      return;
    }
    run.then(
      () => res.writeHead(204).end(),
      (e) => res.writeHead(500).end(String(e)),
    );
  });
  await new Promise<void>((resolve) => control.listen(controlPort, "127.0.0.1", () => resolve()));
  const provided: StackProvided = {
    ...services.env,
    STACK_CONTROL_URL: `http://127.0.0.1:${controlPort}`,
    STRIPE_API_URL: stripe.url,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
  };
  project.provide("stack", provided);
  return async () => {
    control.closeAllConnections();
    await new Promise<void>((resolve) => control.close(() => resolve()));
    await stripe.close();
    await services.stop();
    runLog.check();
  };
}

/**
 * Issue 43: every Worker the tier starts (scripts/stack/edge-worker.ts) appends its log lines to one file; at
 * teardown it is scanned once, and secret material in any line fails the run. A few ms per run.
 */
function startRunLog(): { check(): void } {
  if (process.env.SVC_EDGE_LOG_FILE) return { check() {} };
  const dir = mkdtempSync(join(tmpdir(), "svc-run-log-"));
  const file = join(dir, "edge.jsonl");
  process.env.SVC_EDGE_LOG_FILE = file;
  return {
    check() {
      let text = "";
      try {
        text = readFileSync(file, "utf8");
      } catch {
        // No Worker started in this run.
      }
      const problems = scanLog(text).filter((p) => p.problem !== "not JSON");
      const lines = text.split("\n").filter(Boolean).length;
      if (problems.length === 0) {
        rmSync(dir, { recursive: true, force: true });
        if (lines > 0) console.log(`edge run log: ${lines} lines scanned, no secret material`);
        return;
      }
      // vitest reports a teardown's throw but keeps exit code 0: the code is set here, the file kept to read.
      process.exitCode = 1;
      console.error(
        `FAIL edge run log (${file}): ${problems.length} line(s) with secret material: ${problems
          .slice(0, 20)
          .map((p) => `line ${p.line}: ${p.problem}`)
          .join("; ")}`,
      );
    },
  };
}
