// vitest globalSetup for the worker and integration tiers: a throw-away stack (PGlite in memory + Neon
// bridge, redis-server without persistence + Upstash bridge), migrated, shared by the tier's test files.
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { startFakeStripe } from "../../scripts/stack/fake-stripe";
import { freePort } from "../../scripts/stack/free-port";
import { startServices } from "../../scripts/stack/services";
import type { StackProvided } from "./provided";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The DATABASE_URL variant (real PostgreSQL) is opted into with STACK_DATABASE_URL, see .ci/run.
  const services = await startServices({ databaseUrl: process.env.STACK_DATABASE_URL ?? "", upstashUrl: "" });
  const stripe = await startFakeStripe();
  const controlPort = await freePort();
  const control = createServer((req, res) => {
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
  };
}
