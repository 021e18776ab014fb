// The pre-flight (`npm run deploy:check -- --env production`): the Worker's own zod check, what production
// lacks, local-only variables refused, and never a value printed.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { checkConfig, REQUIRED } from "../../../scripts/deploy-check";
import { ROOT } from "./code-vars";

/** A complete production configuration's secrets (the vars come from wrangler.toml), each value recognisable. */
const SECRETS: Record<string, string> = {
  DATABASE_URL: "postgresql://svc:pw-SECRET-1@ep-x-pooler.eu-central-1.aws.neon.tech/svc?sslmode=require",
  UPSTASH_REDIS_REST_TOKEN: "tok-SECRET-2",
  GPU_SIGNING_SECRET: "gpu-SECRET-3-gpu-SECRET-3",
  ADMIN_TOKEN: "admin-SECRET-4-admin-SECRET-4",
  CONSOLE_SECRET: "console-SECRET-5-console-SECRET-5-console",
  STRIPE_SECRET_KEY: "sk_live_SECRET6",
  STRIPE_WEBHOOK_SECRET: "whsec_SECRET7",
  EMAIL_API_KEY: "re_SECRET8",
  IDP_CLIENT_SECRET: "idp-SECRET-9",
  FALLBACK_API_KEY: "fb-SECRET-10",
};

function run(env: Record<string, string>): { code: number; out: string } {
  try {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", "scripts/deploy-check.ts", "--env", "production", "--no-wrangler", "--no-network"],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
        encoding: "utf8",
      },
    );
    return { code: 0, out };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: e.stdout + e.stderr };
  }
}

describe("deploy:check", () => {
  it("names what production lacks, what is invalid and what is local-only", () => {
    const rows = checkConfig(
      { STRIPE_SECRET_KEY: "pk_live_nope", NEON_WS_PROXY: "127.0.0.1:5480/v2", ADMIN_TOKEN: "short" },
      new Set(["CONSOLE_SECRET"]),
    );
    const by = Object.fromEntries(rows.map((r) => [r.name, r.status]));
    expect(by.STRIPE_SECRET_KEY).toBe("invalid");
    expect(by.ADMIN_TOKEN).toBe("invalid");
    expect(by.NEON_WS_PROXY).toBe("refused");
    expect(by.CONSOLE_SECRET).toBe("on cloudflare");
    expect(by.DATABASE_URL).toBe("missing");
    expect(rows.filter((r) => r.status === "missing").length).toBe(REQUIRED.length - 3);
    expect(JSON.stringify(rows)).not.toContain("pk_live_nope");
  });

  it("from the shell: exit 1 listing the missing secrets; exit 0 when complete; no value ever printed", () => {
    const partial = run({ ADMIN_TOKEN: SECRETS.ADMIN_TOKEN as string });
    expect(partial.code).toBe(1);
    expect(partial.out).toMatch(/missing\s+DATABASE_URL/);
    expect(partial.out).toMatch(/ok\s+ADMIN_TOKEN/);
    const full = run(SECRETS);
    expect(full.out).toContain("deploy:check: ready");
    expect(full.code).toBe(0);
    for (const out of [partial.out, full.out])
      for (const v of Object.values(SECRETS))
        expect(out).not.toContain(v.replace(/^postgresql:\/\/svc:/, ""));
    expect(run({ ...SECRETS, STRICT_ERROR_DECLARATIONS: "1" }).out).toMatch(
      /refused\s+STRICT_ERROR_DECLARATIONS/,
    );
    // Three `tsx` starts: ~5 s each alone, over 20 s each on 2 busy cores (the tiers run side by side, issue 54).
  }, 180_000);
});
