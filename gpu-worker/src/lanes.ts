import { Mutex, Pool, type Priority } from "./lock";

/**
 * One lane: an independent context (its own threads) with its sequences and its decode mutex. `pending` is the
 * planned tokens of the requests admitted to it and not yet evaluated (running or waiting for a sequence), and
 * `pendingLive` the part of it that is live (decides).
 */
export interface Lane<S> {
  readonly index: number;
  readonly mutex: Mutex;
  readonly pool: Pool<S>;
  readonly sequences: number;
  pending: number;
  pendingLive: number;
  /** Live requests admitted to the lane and not finished; batch decodes wait while there are any. */
  liveActive: number;
  liveDone: (() => void)[];
}

/** Progress of one admitted request: `evaluated(n)` as its tokens are decoded, so the lane's queue shrinks. */
export interface Admission<S> {
  lane: Lane<S>;
  priority: Priority;
  evaluated(tokens: number): void;
  /**
   * Resolves when this request may decode: a live one at once, a batch one once no live one is active in its lane
   * or another scheduler of its board. Also resolves once `signal` aborts (the caller went away), so a cancelled
   * batch request frees its sequence at once instead of waiting out the live work.
   */
  turn(signal?: AbortSignal): Promise<void>;
}

/**
 * Live requests active in each scheduler of one process. Two weights files' schedulers share the cores (or the
 * GPU), so a batch decode of one waits while another has live work, as it waits for the live work of its own lane.
 */
export class LiveBoard {
  private readonly active = new Map<object, number>();
  private waiters: (() => void)[] = [];

  change(owner: object, by: number): void {
    const n = (this.active.get(owner) ?? 0) + by;
    if (n > 0) this.active.set(owner, n);
    else this.active.delete(owner);
    if (n === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  /** True when no scheduler other than `owner` has a live request active. */
  quietBesides(owner: object): boolean {
    for (const o of this.active.keys()) if (o !== owner) return false;
    return true;
  }

  /** Resolves at the next moment some scheduler's live work ends (the caller checks again). */
  nextQuiet(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }
}

/**
 * Admission by cost, live before batch. A live request (a decide) goes to the lane with the least live work ahead
 * of it (ties: the least pending in all, then the lowest index) and waits there for a sequence ahead of every
 * batch request. Batch requests (evaluation items) go to the lane with the least pending tokens and hold at most
 * all but one sequence of a lane (of a lane with one sequence, it). Each lane's decodes run under its mutex, live
 * first, each class FIFO, and a batch request decodes only while no live request is active in its lane, so a live
 * request never waits behind more than the one batch chunk running when it came. Starvation bound for a live
 * request: it waits at most (its lane's pending live tokens when admitted) ÷ (the lane's speed) plus one chunk.
 * Batch requests wait for the live work, so under unbroken live load they wait as long as it lasts (evaluations
 * are background work). With a shared `board`, a batch decode also waits while another scheduler of the process
 * (another weights file) has live work.
 */
export class LaneScheduler<S> {
  readonly lanes: Lane<S>[];

  constructor(
    sequencesPerLane: S[][],
    private readonly board: LiveBoard = new LiveBoard(),
  ) {
    this.lanes = sequencesPerLane.map((seqs, index) => ({
      index,
      mutex: new Mutex(),
      pool: new Pool(seqs),
      sequences: seqs.length,
      pending: 0,
      pendingLive: 0,
      liveActive: 0,
      liveDone: [],
    }));
  }

  /** Pending planned tokens over every lane, and the live ones in the lane a live request would go to. */
  queued(): { total: number; least: number } {
    const total = this.lanes.reduce((a, l) => a + l.pending, 0);
    return { total, least: liveAhead(this.laneFor("live")) };
  }

  /** Admits a request of `cost` planned tokens to its lane (see the class) and runs `fn` on one of its sequences. */
  run<R>(
    cost: number,
    fn: (seq: S, admission: Admission<S>) => Promise<R>,
    priority: Priority = "live",
  ): Promise<R> {
    return this.admit(this.laneFor(priority), cost, fn, priority);
  }

  /**
   * Runs `fn` for a live request admitted to `from` on a sequence of another lane that is wholly idle (nothing
   * admitted, a sequence free), or returns `undefined` when no lane is. Its `cost` is that lane's pending live
   * work while it runs, so a request that comes meanwhile sees the lane busy: a helper never makes anyone wait
   * who was there before it.
   */
  helper<R>(
    from: Lane<S>,
    cost: number,
    fn: (seq: S, admission: Admission<S>) => Promise<R>,
  ): Promise<R> | undefined {
    const idle = this.lanes.find(
      (l) => l !== from && l.pending === 0 && l.liveActive === 0 && l.pool.available() > 0,
    );
    return idle && this.admit(idle, cost, fn, "live");
  }

  private async admit<R>(
    lane: Lane<S>,
    cost: number,
    fn: (seq: S, admission: Admission<S>) => Promise<R>,
    priority: Priority,
  ): Promise<R> {
    const live = priority === "live";
    let left = cost;
    const take = (n: number) => {
      lane.pending -= n;
      if (live) lane.pendingLive -= n;
    };
    take(-cost);
    if (live) {
      lane.liveActive++;
      this.board.change(this, 1);
    }
    const admission: Admission<S> = {
      lane,
      priority,
      evaluated(tokens) {
        const n = Math.min(left, tokens);
        left -= n;
        take(n);
      },
      turn: (signal) => (live ? Promise.resolve() : this.batchTurn(lane, signal)),
    };
    try {
      return await lane.pool.use((seq) => fn(seq, admission), priority);
    } finally {
      take(left);
      if (live) {
        if (--lane.liveActive === 0) for (const wake of lane.liveDone.splice(0)) wake();
        this.board.change(this, -1);
      }
    }
  }

  /** A batch decode's wait: no live request active in its lane, nor in another scheduler of the process. */
  private async batchTurn(lane: Lane<S>, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted) return;
      let wait: Promise<void>;
      // (In a lane of one sequence the live request may be waiting for this very sequence: no yielding there.)
      if (lane.liveActive > 0 && lane.sequences > 1) wait = new Promise<void>((r) => lane.liveDone.push(r));
      else if (!this.board.quietBesides(this)) wait = this.board.nextQuiet();
      else return;
      await untilAborted(wait, signal);
    }
  }

  private laneFor(priority: Priority): Lane<S> {
    const order = (a: Lane<S>, b: Lane<S>) =>
      priority === "live" ? liveAhead(a) - liveAhead(b) || a.pending - b.pending : a.pending - b.pending;
    return this.lanes.reduce((best, l) => (order(l, best) < 0 ? l : best));
  }
}

/** `wait`, or less: resolved too when `signal` aborts. */
function untilAborted(wait: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return wait;
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    void wait.then(done);
  });
}

/** What a live request in `lane` waits behind: its live work, or all when a batch item may hold its only sequence. */
function liveAhead<S>(lane: Lane<S>): number {
  return lane.sequences > 1 ? lane.pendingLive : lane.pending;
}

/** Tokens per second of decode time, averaged over recent requests (exponentially, weight by decode time). */
export class SpeedMeter {
  private tokens = 0;
  private seconds = 0;

  constructor(
    /** Seconds of decode time after which older measurements weigh half. */
    private readonly halfLifeSeconds = 30,
  ) {}

  add(tokens: number, seconds: number): void {
    if (!(seconds > 0)) return;
    const keep = 0.5 ** (seconds / this.halfLifeSeconds);
    this.tokens = this.tokens * keep + tokens;
    this.seconds = this.seconds * keep + seconds;
  }

  /** 0 until something was measured. */
  tokensPerSecond(): number {
    return this.seconds > 0 ? this.tokens / this.seconds : 0;
  }
}
