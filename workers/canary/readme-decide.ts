import { DEMO_DECIDE } from "../../schema/demo-decide";

/** The canary's request: the README's decide (schema/demo-decide.ts), sent on each exact version a worker serves. */
export function readmeDecide(model: string): string {
  return JSON.stringify({ ...DEMO_DECIDE, model });
}
