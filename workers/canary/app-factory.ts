import type { ServicesFactory } from "../context/services";
import type { Env } from "../env";

/** Builds the edge app with a services factory (`createApp`): what the canary runs a pinned decide through. */
export type AppFactory = (services: ServicesFactory) => {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response>;
};

let registered: AppFactory | null = null;

/**
 * `workers/app.ts` registers `createApp` here when it loads. The canary cannot import it: the app imports the
 * operator routes that run the canary (an import circle), and a dynamic import made esbuild wrap every module
 * of the circle lazily, +341 KiB of bundle (measured).
 */
export function registerAppFactory(factory: AppFactory): void {
  registered = factory;
}

export function appFactory(): AppFactory {
  if (!registered) throw new Error("no app factory registered (workers/app.ts registers createApp)");
  return registered;
}
