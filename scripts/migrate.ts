// CLI: `DATABASE_URL=postgres://... npm run migrate` applies pending migrations (local, CI or deploy).
// A loopback server is reached through a temporary local Neon bridge; anything else directly (real Neon).
import { applyMigrations } from "./migrations";
import { startNeonBridge } from "./stack/neon-bridge";
import { withNodeClient } from "./stack/neon-node";

const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    "migrate: set DATABASE_URL (e.g. DATABASE_URL=postgresql://user:pass@host/db npm run migrate)",
  );
  process.exit(2);
}
const host = new URL(url).hostname;
const local = ["127.0.0.1", "localhost", "::1", "[::1]"].includes(host);
const bridge = local && !process.env.NEON_WS_PROXY ? await startNeonBridge() : undefined;
try {
  const applied = await withNodeClient(url, { wsProxy: process.env.NEON_WS_PROXY ?? bridge?.wsProxy }, (q) =>
    applyMigrations(q),
  );
  console.log(applied.length ? `migrate: applied ${applied.join(", ")}` : "migrate: up to date");
} finally {
  await bridge?.stop();
}
