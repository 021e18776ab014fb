// A GPU-worker stand-in in its own process that announces itself in the registry with the real announcer
// (gpu-worker/src/announce.ts), so a test can kill it (SIGKILL, SIGSTOP) like a real worker. Environment: the
// announcer's (UPSTASH_REDIS_REST_URL/_TOKEN, GPU_SIGNING_SECRET = money-harness's, SVC_ANNOUNCE_INTERVAL_MS)
// and STAND_IN_CLASS. Prints `url <base url>` once announced, then `calls <n>` whenever it was called.
import { Announcer, announcerConfig } from "../../gpu-worker/src/announce";
import { ALIASES } from "../../schema/models";
import { GPU_SECRET, startStandInGpu } from "./money-harness";

async function main(): Promise<void> {
  const klass = process.env.STAND_IN_CLASS ?? "cpu-stand-in";
  const gpu = await startStandInGpu("ok", klass);
  const env = { ...process.env, SVC_ANNOUNCE_URL: gpu.url, GPU_SIGNING_SECRET: GPU_SECRET };
  const cfg = announcerConfig(env as NodeJS.ProcessEnv);
  if (!cfg) throw new Error("no announcer config");
  const announcer = new Announcer(cfg, () => ({
    numerics_class: klass,
    models: [ALIASES["svc-1"] as string],
    in_flight: 0,
    queue_depth: 0,
    sequences: 2,
    queue_max: 16,
  }));
  await announcer.announce();
  announcer.start();
  console.log(`url ${gpu.url}`);
  let seen = 0;
  setInterval(() => {
    if (gpu.calls() === seen) return;
    seen = gpu.calls();
    console.log(`calls ${seen}`);
  }, 20);
  process.once("SIGTERM", () => {
    void announcer
      .stop()
      .then(() => gpu.close())
      .finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
