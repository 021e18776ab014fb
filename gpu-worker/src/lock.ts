/** A FIFO mutex: `run(fn)` executes `fn` when every earlier caller has finished. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** A pool of items handed out one per caller; callers wait FIFO when all are taken. */
export class Pool<T> {
  private readonly free: T[];
  private readonly waiters: ((item: T) => void)[] = [];

  constructor(items: T[]) {
    this.free = [...items];
  }

  async use<R>(fn: (item: T) => Promise<R>): Promise<R> {
    const item = this.free.pop() ?? (await new Promise<T>((resolve) => this.waiters.push(resolve)));
    try {
      return await fn(item);
    } finally {
      const next = this.waiters.shift();
      if (next) next(item);
      else this.free.push(item);
    }
  }
}
