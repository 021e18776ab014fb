/**
 * Who waits first: `live` calls (decides) before `batch` ones (evaluation items), each class in arrival order.
 * Only the order of waiting changes; every request still runs alone in its sequence, so its bytes do not.
 */
export type Priority = "live" | "batch";

/** Waiters of two classes: `next()` is the oldest live waiter, else the oldest batch one. */
class Waiters<T> {
  private readonly queues: Record<Priority, ((value: T) => void)[]> = { live: [], batch: [] };

  add(priority: Priority, wake: (value: T) => void): void {
    this.queues[priority].push(wake);
  }

  next(
    eligible: (p: Priority) => boolean = () => true,
  ): { priority: Priority; wake: (value: T) => void } | undefined {
    for (const priority of ["live", "batch"] as const) {
      const wake = this.queues[priority][0];
      if (wake && eligible(priority)) {
        this.queues[priority].shift();
        return { priority, wake };
      }
    }
    return undefined;
  }
}

/** A mutex: `run(fn)` executes `fn` when every earlier caller of its class, and every waiting live one, is done. */
export class Mutex {
  private held = false;
  private readonly waiters = new Waiters<void>();

  async run<T>(fn: () => Promise<T>, priority: Priority = "live"): Promise<T> {
    if (this.held) await new Promise<void>((wake) => this.waiters.add(priority, wake));
    else this.held = true;
    try {
      return await fn();
    } finally {
      const next = this.waiters.next();
      if (next) next.wake();
      else this.held = false;
    }
  }
}

/**
 * A pool of items handed out one per caller; callers wait when all are taken, live ones first. Batch callers
 * hold at most `items − 1` items (when there are two or more), so one is always left for a live call.
 */
export class Pool<T> {
  private readonly free: T[];
  private readonly waiters = new Waiters<T>();
  private readonly batchCap: number;
  private batchHeld = 0;
  private readonly grantedToBatch = new Set<T>();

  constructor(items: T[]) {
    this.free = [...items];
    this.batchCap = Math.max(1, items.length - 1);
  }

  /** Items free right now (a live `use` takes one of them without waiting). */
  available(): number {
    return this.free.length;
  }

  async use<R>(fn: (item: T) => Promise<R>, priority: Priority = "live"): Promise<R> {
    const item =
      (this.mayTake(priority) ? this.free.pop() : undefined) ??
      (await new Promise<T>((wake) => this.waiters.add(priority, wake)));
    // Counted when granted (here, or by the releaser before it wakes a batch waiter), so the cap holds.
    if (priority === "batch" && !this.grantedToBatch.delete(item)) this.batchHeld++;
    try {
      return await fn(item);
    } finally {
      if (priority === "batch") this.batchHeld--;
      const next = this.waiters.next((p) => this.mayTake(p));
      if (!next) this.free.push(item);
      else {
        if (next.priority === "batch") {
          this.batchHeld++;
          this.grantedToBatch.add(item);
        }
        next.wake(item);
      }
    }
  }

  private mayTake(priority: Priority): boolean {
    return priority === "live" || this.batchHeld < this.batchCap;
  }
}
