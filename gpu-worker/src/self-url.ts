import { isAllowedWorkerUrl, isLoopbackHost } from "../../schema/signing";

/** Default port of the unsigned ops routes (`/livez`, `/readyz`, `/metrics`) off loopback. */
export const DEFAULT_OPS_PORT = 9788;

/** Whether the worker listens on a loopback address only (`HOST`): nobody off the machine can reach it. */
export function bindsLoopback(host: string): boolean {
  return isLoopbackHost(host === "::1" ? "[::1]" : host);
}

/**
 * The base URL the edge calls this worker at, bound into every signature: `workerUrl` (`SVC_WORKER_URL` or
 * `SVC_ANNOUNCE_URL`), which must be `https` (or `http` on loopback); unset, `http://<host>:<port>` for a
 * worker bound to a loopback address. Throws (the worker refuses to start) otherwise.
 */
export function selfUrl(cfg: { workerUrl?: string | undefined; host: string }, port: number): string {
  if (cfg.workerUrl) {
    if (!isAllowedWorkerUrl(cfg.workerUrl))
      throw new Error(
        `SVC_WORKER_URL / SVC_ANNOUNCE_URL must be https (http only on a loopback address), got ${cfg.workerUrl}`,
      );
    return new URL(cfg.workerUrl).origin;
  }
  if (bindsLoopback(cfg.host)) return `http://${cfg.host === "::1" ? "[::1]" : cfg.host}:${port}`;
  throw new Error(
    "SVC_WORKER_URL is not set. Fix: set it to the https base URL the edge calls this worker at (it is signed into every call and answer).",
  );
}
