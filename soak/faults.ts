import type { Faults } from "./stack";

/** One fault of the run: switched on when `at` of the requests were handed out, off `holdMs` later. */
export interface FaultStep {
  name: "gpu-restart" | "redis-restart" | "postgres-stall" | "fallback-fail";
  at: number;
  holdMs: number;
}

/** Each fault once, spread over the run (fractions of the request budget). */
export const SCHEDULE: FaultStep[] = [
  { name: "gpu-restart", at: 0.15, holdMs: 1_500 },
  { name: "redis-restart", at: 0.35, holdMs: 2_000 },
  { name: "postgres-stall", at: 0.55, holdMs: 3_000 },
  // The GPU is killed too, so that live calls with `fallback: allow` go to the failing fallback.
  { name: "fallback-fail", at: 0.75, holdMs: 1_500 },
];

export interface FaultEvent {
  name: string;
  /** ms since the epoch: switched on, recovered (the dependency answers again). */
  on: number;
  off: number;
}

/**
 * Runs SCHEDULE against the traffic: `gate(issued)` holds the traffic at a fault's mark until the fault is on
 * (so every fault meets traffic however fast the run goes); the fault stays on `holdMs` while traffic flows,
 * then the dependency is brought back (a GPU worker takes its model load).
 */
export class FaultInjector {
  readonly events: FaultEvent[] = [];
  private readonly active = new Set<string>();
  private next = 0;
  private starting: Promise<void> | undefined;
  private previous: Promise<void> = Promise.resolve();
  private readonly done: Promise<void>[] = [];

  constructor(
    private readonly faults: Faults,
    private readonly requests: number,
    private readonly log: (line: string) => void,
    private readonly schedule: FaultStep[] = SCHEDULE,
  ) {}

  activeFaults = (): string[] => [...this.active];

  gate = async (issued: number): Promise<void> => {
    const step = this.schedule[this.next];
    if (step && issued >= step.at * this.requests && !this.starting) {
      this.next++;
      // One fault at a time: the next waits until the previous one has recovered (holding the traffic).
      this.starting = (async () => {
        await this.previous;
        let switchedOn: () => void = () => {};
        const on = new Promise<void>((r) => {
          switchedOn = r;
        });
        this.previous = this.cycle(step, switchedOn);
        this.previous.catch(() => {}); // reported by settle()
        this.done.push(this.previous);
        await on;
      })().finally(() => {
        this.starting = undefined;
      });
    }
    if (this.starting) await this.starting;
  };

  /** Waits for every started fault to recover. */
  async settle(): Promise<void> {
    await Promise.all(this.done);
  }

  private async cycle(step: FaultStep, switchedOn: () => void): Promise<void> {
    const on = Date.now();
    this.active.add(step.name);
    this.log(`fault on: ${step.name}`);
    const hold = () => new Promise((r) => setTimeout(r, step.holdMs));
    try {
      if (step.name === "gpu-restart") {
        this.faults.killGpu();
        this.release(switchedOn);
        await hold();
        await this.faults.restartGpu();
      } else if (step.name === "redis-restart") {
        await this.faults.stopRedis();
        this.release(switchedOn);
        await hold();
        await this.faults.startRedis();
      } else if (step.name === "postgres-stall") {
        this.faults.stallPostgres();
        this.release(switchedOn);
        await hold();
        this.faults.resumePostgres();
      } else {
        this.faults.failFallback(true);
        this.faults.killGpu();
        this.release(switchedOn);
        await hold();
        this.faults.failFallback(false);
        await this.faults.restartGpu();
      }
    } finally {
      this.release(switchedOn);
      this.active.delete(step.name);
      this.events.push({ name: step.name, on, off: Date.now() });
      this.log(`fault off: ${step.name} after ${Date.now() - on} ms`);
    }
  }

  private release(switchedOn: () => void): void {
    switchedOn();
  }
}
