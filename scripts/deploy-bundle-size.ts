/**
 * CI's deploy step (`.ci/run`, 0-deploy-static): `wrangler deploy --dry-run --env production` builds the Worker
 * exactly as a deploy would (no account needed) and its size is held against Cloudflare's limits. The budget is
 * the Workers Free limit (3 MiB gzip), well under the Paid one (10 MiB), so growth is noticed early.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const LIMITS_KIB = { free: 3 * 1024, paid: 10 * 1024 };

/** `Total Upload: 2908.57 KiB / gzip: 669.82 KiB` → both sizes in KiB. */
export function parseUpload(out: string): { raw: number; gzip: number } | null {
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(out);
  return m ? { raw: Number(m[1]), gzip: Number(m[2]) } : null;
}

function main(): void {
  const env = process.argv[2] ?? "production";
  const outdir = mkdtempSync(join(tmpdir(), "svc-dry-run-"));
  try {
    const out = execFileSync("npx", ["wrangler", "deploy", "--dry-run", "--env", env, "--outdir", outdir], {
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
    });
    const size = parseUpload(out);
    if (!size) throw new Error(`no "Total Upload" line in wrangler's output:\n${out}`);
    const pct = (size.gzip / LIMITS_KIB.free) * 100;
    console.log(
      `deploy: Worker bundle (--env ${env}) ${size.raw.toFixed(2)} KiB, ${size.gzip.toFixed(2)} KiB gzip = ${pct.toFixed(0)} % of the Free limit (${LIMITS_KIB.free} KiB gzip), ${((size.gzip / LIMITS_KIB.paid) * 100).toFixed(0)} % of the Paid limit (${LIMITS_KIB.paid} KiB)`,
    );
    if (size.gzip > LIMITS_KIB.free) {
      console.error("deploy: the Worker is over the 3 MiB budget (docs/deploy.md)");
      process.exitCode = 1;
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
