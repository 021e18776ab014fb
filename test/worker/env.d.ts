import type { Env } from "../../workers/env";

declare module "cloudflare:test" {
  interface ProvidedEnv extends Env {}
}
