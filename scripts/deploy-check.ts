/**
 * `npm run deploy:check -- --env production [--env-file PATH] [--no-wrangler] [--no-network]`: the pre-flight
 * of docs/deploy.md. The configuration = the environment's `[vars]` from wrangler.toml + the secrets exported
 * in this shell (or in --env-file). Checks it with the Worker's own zod schema, lists what production needs and
 * lacks, refuses local-only variables, asks wrangler which secrets Cloudflare already holds (names only), and
 * reaches each URL where the network allows. Never prints a value. Exit 1 when anything is missing or invalid.
 */
import { execFileSync } from "node:child_process";
import { lookup } from "node:dns/promises";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "@upstash/redis";
import { unstable_readConfig } from "wrangler";
import { GpuRegistry, upstashRegistryRead } from "../workers/clients/gpu-registry";
import { EnvVars } from "../workers/middleware/env-check";

/** What a production Worker must have (docs/deploy.md, step 6). */
export const REQUIRED = [
  "DATABASE_URL",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "GPU_SIGNING_SECRET",
  "ADMIN_TOKEN",
  "CONSOLE_SECRET",
  "CONSOLE_ORIGIN",
  "STRIPE_SECRET_KEY",
  "STRIPE_WEBHOOK_SECRET",
  "EMAIL_API_KEY",
  "EMAIL_FROM",
  "IDP_ISSUER",
  "IDP_CLIENT_IDS",
  "IDP_JWKS_URL",
  "IDP_AUTHORIZE_URL",
  "IDP_TOKEN_URL",
  "IDP_CLIENT_SECRET",
  "FALLBACK_BASE_URL",
  "FALLBACK_DEPLOYMENT",
  "FALLBACK_API_KEY",
] as const;
/** Local stack and tests only: a production Worker must not have them. */
export const LOCAL_ONLY = [
  "NEON_WS_PROXY",
  "NEON_HTTP_ENDPOINT",
  "STRIPE_API_URL",
  "STRICT_ERROR_DECLARATIONS",
];

export type Status = "ok" | "missing" | "invalid" | "refused" | "on cloudflare" | "unreachable" | "note";
export interface Row {
  name: string;
  status: Status;
  why?: string;
}

/** The variables of the Worker's schema found in `source` (a shell environment, an env file). */
export function pickVars(source: Record<string, string | undefined>): Record<string, string> {
  const names = Object.keys(EnvVars.shape);
  return Object.fromEntries(
    names.flatMap((n) => (source[n] !== undefined && source[n] !== "" ? [[n, source[n] as string]] : [])),
  );
}

/** The configuration checks that need no network: schema, required, local-only. */
export function checkConfig(
  values: Record<string, string>,
  onCloudflare: ReadonlySet<string> = new Set(),
): Row[] {
  const rows: Row[] = [];
  const parsed = EnvVars.safeParse(values);
  const invalid = new Map<string, string>();
  if (!parsed.success) for (const i of parsed.error.issues) invalid.set(String(i.path[0]), i.message);
  for (const name of Object.keys(EnvVars.shape)) {
    const bad = invalid.get(name);
    if (LOCAL_ONLY.includes(name)) {
      if (name in values)
        rows.push({ name, status: "refused", why: "local stack only; unset it in production" });
    } else if (bad) rows.push({ name, status: "invalid", why: bad });
    else if (name in values) rows.push({ name, status: "ok" });
    else if (onCloudflare.has(name))
      rows.push({ name, status: "on cloudflare", why: "set as a secret, not checked here" });
    else if ((REQUIRED as readonly string[]).includes(name)) rows.push({ name, status: "missing" });
  }
  if (values.GPU_POOL_URLS)
    rows.push({
      name: "GPU_POOL_URLS",
      status: "note",
      why: "set: the static override, the registry is not read",
    });
  if (values.STRIPE_SECRET_KEY?.startsWith("sk_test_") || values.STRIPE_SECRET_KEY?.startsWith("rk_test_"))
    rows.push({ name: "STRIPE_SECRET_KEY", status: "note", why: "a test-mode key" });
  return rows;
}

const TIMEOUT_MS = 5_000;
/**
 * URLs the Worker calls. Not `IDP_ISSUER` (an identifier, not fetched) nor `CONSOLE_ORIGIN` (the Worker's own
 * domain, which does not answer before the first deploy).
 */
const URL_VARS = [
  "FALLBACK_BASE_URL",
  "EMAIL_API_URL",
  "IDP_JWKS_URL",
  "IDP_AUTHORIZE_URL",
  "IDP_TOKEN_URL",
  "STRIPE_API_URL",
];

async function tcp(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const s = connect({ host, port, timeout: TIMEOUT_MS }, () => {
      s.destroy();
      resolve();
    });
    s.on("timeout", () => s.destroy(new Error("timeout")));
    s.on("error", reject);
  });
}

const reason = (err: unknown) =>
  err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);

/** Reaches what the values point at: HTTP(S) URLs (any HTTP answer counts), Postgres (DNS + TCP), Upstash (PING), the GPU registry. */
export async function checkReachable(values: Record<string, string>): Promise<Row[]> {
  const rows: Row[] = [];
  const http = URL_VARS.flatMap((n) => (values[n] ? [[n, values[n]] as const] : []));
  for (const u of (values.GPU_POOL_URLS ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean))
    http.push(["GPU_POOL_URLS", `${u.replace(/\/+$/, "")}/readyz`]);
  await Promise.all(
    http.map(async ([name, url]) => {
      try {
        await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "manual" });
      } catch (err) {
        rows.push({ name, status: "unreachable", why: reason(err) });
      }
    }),
  );
  if (values.DATABASE_URL) {
    try {
      const u = new URL(values.DATABASE_URL);
      await lookup(u.hostname);
      await tcp(u.hostname, Number(u.port || 5432));
    } catch (err) {
      rows.push({ name: "DATABASE_URL", status: "unreachable", why: `host: ${reason(err)}` });
    }
  }
  if (values.UPSTASH_REDIS_REST_URL && values.UPSTASH_REDIS_REST_TOKEN) {
    try {
      const redis = new Redis({
        url: values.UPSTASH_REDIS_REST_URL,
        token: values.UPSTASH_REDIS_REST_TOKEN,
        enableTelemetry: false,
        retry: false,
      });
      await redis.ping();
      if (values.GPU_SIGNING_SECRET && !values.GPU_POOL_URLS) {
        const reg = new GpuRegistry(upstashRegistryRead(values), values.GPU_SIGNING_SECRET, {
          readTimeoutMs: TIMEOUT_MS,
        });
        const live = await reg.members();
        const adverts = live.map(
          (m) => `${m.url} (${m.advert?.numerics_class}: ${m.advert?.models.join(", ")})`,
        );
        rows.push({
          name: "GPU registry",
          status: live.length ? "ok" : "note",
          why: live.length
            ? `${live.length} live: ${adverts.join("; ")}`
            : "no live GPU worker announced yet",
        });
      }
    } catch (err) {
      rows.push({ name: "UPSTASH_REDIS_REST_URL", status: "unreachable", why: reason(err) });
    }
  }
  return rows;
}

/** Secret names Cloudflare holds for the environment (wrangler secret list), or null when wrangler cannot say. */
function cloudflareSecrets(env: string): Set<string> | null {
  try {
    const out = execFileSync("npx", ["wrangler", "secret", "list", "--env", env, "--format", "json"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 60_000,
    });
    return new Set((JSON.parse(out) as { name: string }[]).map((s) => s.name));
  } catch {
    return null;
  }
}

function envFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1] as string] = (m[2] as string).replace(/^(['"])(.*)\1$/, "$2");
  }
  return out;
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      env: { type: "string" },
      "env-file": { type: "string" },
      "no-wrangler": { type: "boolean", default: false },
      "no-network": { type: "boolean", default: false },
    },
  });
  if (!args.env) throw new Error("usage: npm run deploy:check -- --env production [--env-file PATH]");
  const cfg = unstable_readConfig({ config: join(process.cwd(), "wrangler.toml"), env: args.env }, {});
  const vars = Object.fromEntries(Object.entries(cfg.vars).map(([k, v]) => [k, String(v)]));
  const shell = pickVars(args["env-file"] ? envFile(args["env-file"]) : process.env);
  const values = { ...shell, ...pickVars(vars) };
  const onCloudflare = args["no-wrangler"] ? null : cloudflareSecrets(args.env);
  const rows = checkConfig(values, onCloudflare ?? new Set());
  if (!args["no-wrangler"] && !onCloudflare)
    rows.push({
      name: "wrangler",
      status: "note",
      why: "could not list the secrets on Cloudflare (wrangler login?)",
    });
  if (!args["no-network"]) rows.push(...(await checkReachable(values)));
  console.log(
    `deploy:check --env ${args.env} (worker ${cfg.name}; ${Object.keys(vars).length} vars in wrangler.toml)`,
  );
  for (const r of rows) console.log(`  ${r.status.padEnd(13)} ${r.name}${r.why ? `: ${r.why}` : ""}`);
  const failed = rows.filter((r) => ["missing", "invalid", "refused", "unreachable"].includes(r.status));
  console.log(failed.length ? `deploy:check: ${failed.length} problem(s)` : "deploy:check: ready");
  process.exitCode = failed.length ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`)
  main().catch((err: unknown) => {
    console.error(`deploy:check: ${err instanceof Error ? err.message : err}`);
    process.exit(2);
  });
