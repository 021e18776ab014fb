import { recordUsageEvent } from "../workers/stores/usage";
import { startNeonBridge } from "./stack/neon-bridge";
import { configureNeonForNode } from "./stack/neon-node";

const b = await startNeonBridge();
configureNeonForNode({ wsProxy: b.wsProxy, httpEndpoint: b.httpEndpoint });
const env = {
  DATABASE_URL: "postgresql://svc_reports:svc_reports@127.0.0.1:5432/svc_reports",
  NEON_WS_PROXY: b.wsProxy,
  NEON_HTTP_ENDPOINT: b.httpEndpoint,
};
const e = {
  request_id: `req_probe${Date.now()}`,
  account_id: "acc_probe",
  key_id: "key_A",
  mode: "live" as const,
  model: "m",
  served_by: "gpu" as const,
  input_tokens: 1,
  state_tokens: 1,
  question_tokens: 1,
  charge_micro_cents: 5,
  unit_price_micro_cents: 5,
  tier: "t1",
  status: 200,
  error_code: null,
  replayed: false,
  at: Date.now(),
};
const t = Date.now();
try {
  const r = await Promise.all(Array.from({ length: 8 }, () => recordUsageEvent(env, e)));
  console.log("ok", Date.now() - t, r);
} catch (err) {
  console.log("err", Date.now() - t, String(err));
}
await b.stop();
