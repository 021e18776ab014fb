// `npm start`: the whole service on this machine (see README "Local stack"). Data persists under .local/.
import { ADMIN_TOKEN_FILE } from "./stack/admin-token";
import { DEMO_DECIDE } from "./stack/demo-decide";
import { DEFAULT_READY_TIMEOUT_MS, type Stack, startStack } from "./stack/start-stack";

export { type Stack, type StackOptions, startStack } from "./stack/start-stack";

async function main(): Promise<void> {
  const t0 = performance.now();
  const port = Number(process.env.PORT ?? 8787);
  const dataDir = process.env.SVC_DATA_DIR || ".local";
  const before = new Set([...process.listeners("SIGINT"), ...process.listeners("SIGTERM")]);
  const gpu = !process.env.SVC_NO_GPU;
  const readyTimeoutMs = Number(process.env.SVC_READY_TIMEOUT_MS || DEFAULT_READY_TIMEOUT_MS);
  const stack = await startStack({ dataDir, port, gpu, readyTimeoutMs, log: (line) => console.log(line) });
  // Miniflare installs exit hooks that call process.exit on SIGINT/SIGTERM before our async stop can
  // close PGlite and the child processes; we stop everything (Miniflare included) ourselves.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    for (const l of process.listeners(signal)) if (!before.has(l)) process.removeListener(signal, l);
  }
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack`);
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));

  console.log(`\nsvc is up at ${stack.baseUrl} (ready in ${Math.round(performance.now() - t0)} ms)`);
  if (stack.demo) {
    console.log(`demo account ${stack.demo.account_id}; keys in ${stack.demoFile}. Try:\n`);
    console.log(`  curl -s ${stack.baseUrl}/v1/key -H "authorization: Bearer ${stack.demo.test_key}"\n`);
    console.log(
      `  curl -s ${stack.baseUrl}/v1/decide -H "authorization: Bearer ${stack.demo.test_key}" -H "content-type: application/json" -d '${JSON.stringify(DEMO_DECIDE)}'\n`,
    );
  }
  console.log(`console (browser): ${stack.baseUrl}/console/\n`);
  if (stack.console?.emailUrl)
    console.log(
      `console: sign-in e-mails land in ${stack.console.emailUrl}/__inbox; identity provider ${stack.console.idpUrl ?? "(configured)"}\n`,
    );
  console.log(`logs (one JSON object a line): ${dataDir}/logs/edge.jsonl, ${dataDir}/logs/gpu.jsonl\n`);
  printOperator(stack, dataDir);
  console.log("Ctrl-C stops everything.");
}

/** The operator's part (docs/operations.md, "Locally"): the admin token, where it is kept, the canary's key. */
function printOperator(stack: Stack, dataDir: string): void {
  const admin = stack.env.ADMIN_TOKEN;
  const kept = process.env.ADMIN_TOKEN ? "from ADMIN_TOKEN" : `kept in ${dataDir}/${ADMIN_TOKEN_FILE}`;
  console.log(`admin token (ADMIN_TOKEN, for /internal/*; ${kept}, and admin_token in demo.json): ${admin}`);
  const canary = process.env.CANARY_API_KEY ? "CANARY_API_KEY" : "the demo test key";
  console.log(`the canary decides with ${canary}. The runbook's local commands (docs/operations.md):\n`);
  for (const path of ["alerts/evaluate", "canary/run"])
    console.log(`  curl -s -X POST ${stack.baseUrl}/internal/${path} -H "authorization: Bearer ${admin}"\n`);
  if (stack.alertsUrl)
    console.log(
      `alerts: the operator webhook is a capture server; read what it got at ${stack.alertsUrl}/alerts\n`,
    );
}

// Only when run as a script (tests import startStack from ./stack/start-stack).
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, "/"))) {
  main().catch((error) => {
    console.error(`npm start failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
