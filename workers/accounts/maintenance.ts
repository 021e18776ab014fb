import { ApiError } from "../errors";
import type { Database } from "../stores/db";
import { readSwitch, type SwitchState, writeSwitch } from "../stores/operator-switches";

/** The operator switch that puts the console (sign-in, sessions, keys, settings) in maintenance. */
export const CONSOLE_MAINTENANCE = "console_maintenance";
/** How long an isolate reuses what it read (the switch takes effect everywhere within about a second). */
export const SWITCH_CACHE_MS = 1000;

/** The console maintenance switch with a ≤1 s isolate cache; built once per isolate (services). */
export class MaintenanceSwitch {
  private cached: { state: SwitchState; at: number } | null = null;

  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 503 `maintenance` (with the switch's `retry-after`) while it is on. A store outage is a 503 too. */
  async check(): Promise<void> {
    const t = this.now();
    if (!this.cached || t - this.cached.at >= SWITCH_CACHE_MS) {
      let state: SwitchState;
      try {
        state = await readSwitch(this.db, CONSOLE_MAINTENANCE);
      } catch {
        throw new ApiError("maintenance", { message: "The console is temporarily unavailable." });
      }
      this.cached = { state, at: t };
    }
    const { state } = this.cached;
    if (state.enabled)
      throw new ApiError("maintenance", {
        retryAfter: state.retryAfterSeconds,
        message: "The console is in maintenance; nothing was changed.",
      });
  }

  /** Turns the switch on or off (operator route); this isolate sees it at once. */
  async set(state: SwitchState): Promise<void> {
    await writeSwitch(this.db, CONSOLE_MAINTENANCE, state);
    this.cached = { state, at: this.now() };
  }
}
