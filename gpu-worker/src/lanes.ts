import { Mutex, Pool } from "./lock";

/**
 * One lane: an independent context (its own threads) with its sequences and its decode mutex. `pending` is the
 * planned tokens of the requests admitted to it and not yet evaluated (running or waiting for a sequence).
 */
export interface Lane<S> {
  readonly index: number;
  readonly mutex: Mutex;
  readonly pool: Pool<S>;
  pending: number;
}

/** Progress of one admitted request: `evaluated(n)` as its tokens are decoded, so the lane's queue shrinks. */
export interface Admission<S> {
  lane: Lane<S>;
  evaluated(tokens: number): void;
}

/**
 * Admission by cost: a request goes to the lane with the least pending planned tokens (ties: the lowest index),
 * and waits there FIFO for a sequence; the lane's decodes run FIFO under its mutex. Starvation bound: a request
 * starts once the work queued ahead of it in its lane is done, so it waits at most (that lane's pending tokens
 * when it was admitted) ÷ (the lane's speed); nothing admitted later goes ahead of it in its lane.
 */
export class LaneScheduler<S> {
  readonly lanes: Lane<S>[];

  constructor(sequencesPerLane: S[][]) {
    this.lanes = sequencesPerLane.map((seqs, index) => ({
      index,
      mutex: new Mutex(),
      pool: new Pool(seqs),
      pending: 0,
    }));
  }

  /** Pending planned tokens over every lane, and in the least loaded lane. */
  queued(): { total: number; least: number } {
    const p = this.lanes.map((l) => l.pending);
    return { total: p.reduce((a, b) => a + b, 0), least: Math.min(...p) };
  }

  /** Admits a request of `cost` planned tokens to the least loaded lane and runs `fn` on one of its sequences. */
  async run<R>(cost: number, fn: (seq: S, admission: Admission<S>) => Promise<R>): Promise<R> {
    let lane = this.lanes[0] as Lane<S>;
    for (const l of this.lanes) if (l.pending < lane.pending) lane = l;
    let left = cost;
    lane.pending += cost;
    const admission: Admission<S> = {
      lane,
      evaluated(tokens) {
        const n = Math.min(left, tokens);
        left -= n;
        lane.pending -= n;
      },
    };
    try {
      return await lane.pool.use((seq) => fn(seq, admission));
    } finally {
      lane.pending -= left;
    }
  }
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
