import type { WorkerLoad } from "./gpu-load";
import { type Advert, askReady } from "./gpu-readiness";
import type { PoolMember, PoolSource } from "./gpu-registry";

/** What this isolate knows of one worker: its calls in flight, its back-off, what it serves, its load. */
export interface WorkerState {
  url: string;
  inflight: number;
  /** Until when the worker is skipped after a failure (ms since epoch). */
  downUntil: number;
  /** Null until the registry, the worker's `/readyz` or an answer said what it serves. */
  advert: Advert | null;
  /** The registry advert last applied (its `announced_at`), so a newer heartbeat replaces what was learned. */
  announcedAt: number;
  /** Load per sequence at the last heartbeat (registry only; 0 for a static URL). */
  announcedLoad: number;
  /** Per version, the speed and queued work the worker last reported (its answers' header, `/readyz`). */
  load: Map<string, WorkerLoad & { at: number }>;
  /** Whether `/readyz` was asked for the load yet (once: a worker that reports none keeps the fixed deadline). */
  loadAsked: boolean;
}

/** Where a call may go: the exact version, and for a replay the numerics class of the original. */
export interface Placement {
  model: string;
  numericsClass?: string;
}

/**
 * The pool's workers as this isolate sees them, and which may take a call: up (a worker that failed is skipped
 * for a back-off and re-admitted after its `/readyz` answers 200), advertising the call's exact version (and,
 * for a replay, the original's numerics class); least in-flight first, ties by the load each last announced.
 */
export class WorkerRoster {
  /** What this isolate knows of each worker (back-off, in-flight, advert), kept across registry refreshes. */
  private readonly states = new Map<string, WorkerState>();
  private lastSize = 0;

  constructor(
    private readonly source: PoolSource,
    private readonly secret: string,
    private readonly opts: { backoffMs: number; probeTimeoutMs: number },
  ) {}

  /** Workers seen at the last call. */
  get size(): number {
    return this.lastSize;
  }

  /** The members now in the order a call tries them, a registry advert applied when it is newer than known. */
  async ordered(): Promise<WorkerState[]> {
    const members = await this.source.members();
    const out = members.map((m) => this.stateOf(m));
    if (this.states.size > members.length * 2 + 8) {
      const keep = new Set(members.map((m) => m.url));
      for (const url of this.states.keys()) if (!keep.has(url)) this.states.delete(url);
    }
    this.lastSize = out.length;
    return out.sort(
      (a, b) => a.downUntil - b.downUntil || a.inflight - b.inflight || a.announcedLoad - b.announcedLoad,
    );
  }

  private stateOf(m: PoolMember): WorkerState {
    let w = this.states.get(m.url);
    if (!w) {
      w = {
        url: m.url,
        inflight: 0,
        downUntil: 0,
        advert: null,
        announcedAt: 0,
        announcedLoad: 0,
        load: new Map(),
        loadAsked: false,
      };
      this.states.set(m.url, w);
    }
    const a = m.advert;
    if (a && a.announced_at !== w.announcedAt) {
      w.announcedAt = a.announced_at;
      w.advert = { numericsClass: a.numerics_class, models: new Set(a.models) };
      w.announcedLoad = a.in_flight / a.sequences;
    }
    return w;
  }

  /** The worker failed: skip it for the back-off. */
  backOff(w: WorkerState): void {
    w.downUntil = Date.now() + this.opts.backoffMs;
  }

  /**
   * Asks `/readyz`: ready or not, and what the worker advertises. A failed probe, or an answer not signed by
   * that worker, backs the worker off.
   */
  async probe(w: WorkerState): Promise<boolean> {
    try {
      const ready = await askReady(this.secret, w.url, this.opts.probeTimeoutMs);
      w.advert = ready.advert;
      for (const [v, l] of Object.entries(ready.load)) w.load.set(v, { ...l, at: Date.now() });
      if (ready.ready) {
        w.downUntil = 0;
        return true;
      }
    } catch {
      // still down
    }
    this.backOff(w);
    return false;
  }

  /**
   * Whether `w` may take a call placed at `at`: it is up (a backed-off worker is probed again once its back-off
   * passed) and it advertises the version and, for a replay, the original's class. A worker not yet known is
   * probed first only when a class is required; otherwise the call itself tells what it serves.
   */
  async accepts(w: WorkerState, at: Placement): Promise<boolean> {
    if (w.downUntil > 0) {
      if (Date.now() < w.downUntil || !(await this.probe(w))) return false;
    } else if (!w.advert && at.numericsClass && !(await this.probe(w))) return false;
    const a = w.advert;
    if (!a) return true;
    if (a.models && !a.models.has(at.model)) return false;
    return !at.numericsClass || a.numericsClass === at.numericsClass;
  }
}

/** What an answer tells of its worker: its class, and that it serves `model`. */
export function learn(w: WorkerState, model: string, numericsClass: string | null): void {
  if (!w.advert || w.advert.numericsClass !== numericsClass)
    w.advert = { numericsClass, models: w.advert?.models ?? null };
  w.advert.models?.add(model);
}
