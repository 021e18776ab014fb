import { AsyncLocalStorage } from "node:async_hooks";

/** Thrown at the next decode boundary of a request whose caller went away (issue 30, cancellation). */
export class CancelledError extends Error {
  constructor() {
    super("request cancelled: the caller went away");
  }
}

const current = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` as the cancellation of every scorer call made inside it (the engine passes no signal). */
export function withCancellation<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return current.run(signal, fn);
}

/** The current request's cancellation (undefined outside `withCancellation`). */
export function cancelSignal(): AbortSignal | undefined {
  return current.getStore();
}

/** Throws CancelledError when the current request's caller has gone away; called before each decode. */
export function checkCancelled(): void {
  if (current.getStore()?.aborted) throw new CancelledError();
}
