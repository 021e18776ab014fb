import { errorText, logEvent } from "../observability/log";
import { RUNNING_LEASE_MS } from "../stores/idempotency";
import type { Ticket } from "./admission";

/** How often a call at work renews its slot and idempotency leases (the slot's lease is 120 s). */
export const RENEW_EVERY_MS = 30_000;
/**
 * A call stops a minute before its last renewed idempotency lease would lapse: if renewals fail (Redis down), it
 * is abandoned (503, refunded) before a retry could take its record over and run beside it.
 */
export const LEASE_MARGIN_MS = 60_000;

/** Why a held call's signal fired. */
export type HoldEnd = "client_gone" | "lease_lost";

export interface CallHold {
  /** Aborted when the client goes away or the leases could not be renewed in time; its `reason` is a HoldEnd. */
  signal: AbortSignal;
  /** Stops renewing (the call has ended, however). */
  release(): void;
}

/**
 * Holds an admitted call's concurrency slot and `running` idempotency record while its dispatch runs: renewed
 * every `everyMs`, so a long call keeps both; the dispatch deadline itself is the engine's (the worker's speed,
 * under its ceiling). The signal ends the call when `client` aborts (workerd's request.signal) or when no renewal
 * succeeded for `leaseMs − marginMs`.
 */
export function holdCall(
  ticket: Pick<Ticket, "renew">,
  opts: { client?: AbortSignal; everyMs?: number; leaseMs?: number; marginMs?: number } = {},
): CallHold {
  const everyMs = opts.everyMs ?? RENEW_EVERY_MS;
  const heldForMs = (opts.leaseMs ?? RUNNING_LEASE_MS) - (opts.marginMs ?? LEASE_MARGIN_MS);
  const ends = new AbortController();
  const end = (why: HoldEnd) => {
    if (!ends.signal.aborted) ends.abort(why);
  };
  let lapse = setTimeout(() => end("lease_lost"), heldForMs);
  const renewing = setInterval(() => {
    const at = Date.now();
    ticket.renew().then(
      () => {
        if (ends.signal.aborted) return;
        clearTimeout(lapse);
        lapse = setTimeout(() => end("lease_lost"), heldForMs - (Date.now() - at));
      },
      (err: unknown) => logEvent("error", "lease_not_renewed", { error: errorText(err) }),
    );
  }, everyMs);
  const onClientGone = () => end("client_gone");
  if (opts.client?.aborted) onClientGone();
  else opts.client?.addEventListener("abort", onClientGone, { once: true });
  return {
    signal: ends.signal,
    release() {
      clearInterval(renewing);
      clearTimeout(lapse);
      opts.client?.removeEventListener("abort", onClientGone);
    },
  };
}
