import {
  type ControlledEvaluateInputItem,
  getLlama,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  LlamaLogLevel,
  type LlamaModel,
  type LlamaModelOptions,
  type Token,
} from "node-llama-cpp";
import type { ScoreQuestion } from "../../schema/engine-protocol";
import { type EvaluationLayout, SVC1_LAYOUT } from "../../schema/models";
import { cancelSignal, checkCancelled } from "./cancel";
import type { Framing, Piece } from "./framings";
import { helperShare } from "./helper-share";
import { logProbs, nextItem, scoreOutcomes, type WalkSequence } from "./label-walk";
import { type Admission, LaneScheduler, type LiveBoard, SpeedMeter } from "./lanes";
import type { Priority } from "./lock";
import { Histogram, type SchedulerStats } from "./metrics";
import { type NumericsClass, numericsClassOf } from "./numerics";
import { FA_TILE_ROWS, prefixReuseMeasuredOn, reusableTokens } from "./prefix-reuse";
import { buildPromptTree, type PromptNode } from "./prompt-tree";
import { svc1Readable } from "./read-rule";
import { continuationTokens, type ReadRule, tokenizePieces } from "./tokenize";
import { buildTrie, type Trie } from "./trie";

export interface ScorerOptions {
  modelPath: string;
  /** CPU threads per evaluation; always explicit (library defaults are slow on small machines). */
  threads: number;
  /** Sequences in each lane's context = requests that may hold a sequence of one lane at once. */
  sequences: number;
  /**
   * Independent contexts ("lanes"), default 1: each with its own `threads`, its own decode mutex and its own
   * `sequences`; a request runs alone in one lane, in the layout's chunks (answers do not depend on the lane).
   * Lanes × threads ≤ cores, or the lanes slow each other down.
   */
  lanes?: number;
  /**
   * The version's evaluation layout (default svc-1's): batch = micro-batch tokens per decode, fixed so a
   * request's batch layout never depends on load, and flash attention set explicitly (never the library's auto).
   */
  layout?: EvaluationLayout;
  /** The version's read rule (`schema/models.ts`): `svc1-tokenizable` reads caller text through `svc1Readable`. */
  reads?: "svc1-tokenizable";
  /** Tokens one sequence can hold (state prefix + one question + its longest continuation). */
  contextSize?: number;
  gpu?: "auto" | "cuda" | false;
  /**
   * Default true: one decode at a time, so no batch mixes two requests (byte-identical answers under load).
   * False lets concurrent requests' decodes co-batch (faster on a GPU, not batch-invariant); benchmarks only.
   */
  isolateRequests?: boolean;
  /**
   * Default true (effective on the pinned CPU variant only): a request keeps the head of its state prefix that the
   * previous request of its sequence evaluated where that gives the same bits (prefix-reuse); false evaluates
   * every prefix from position 0.
   */
  reusePrefixes?: boolean;
  /** Shared by every scorer of the process, so one file's batch decodes wait for another file's live work. */
  liveBoard?: LiveBoard;
  /**
   * Default true, with two or more lanes: a live request whose questions can be split hands about half of them
   * to a wholly idle lane, which evaluates the (short) state prefix and the questions' shared heads too (see
   * `helperShare`); the answers and the meter are the same bytes either way. False keeps every request on one lane.
   */
  spreadQuestions?: boolean;
  /**
   * RoPE scaling written over the GGUF's metadata (llama.cpp reads it at load; node-llama-cpp exposes no context
   * option for it). Unset = the model's own (none for SmolLM2). Measured past 8,192 tokens in docs/quality.md.
   */
  ropeScaling?: {
    type: "yarn" | "linear";
    /** Must not be an integer: node-llama-cpp passes integers as int overrides, which llama.cpp ignores for this float key. */
    factor: number;
    originalContextLength: number;
  };
}

/** Tokens evaluated for a request, and tokens read from the KV cache instead of being evaluated again. */
export interface Meter {
  tokens_evaluated: number;
  tokens_reused: number;
}

export interface RawScores {
  /** Per question, log P(continuation) per outcome, in outcome order. */
  scores: number[][];
  /** Per question, the number of tokens scored per outcome (for length normalisation). */
  tokensPerOutcome: number[][];
  meter: Meter;
}

/** A tokenized request: what one sequence evaluates, in order. */
interface Plan {
  prefix: Token[];
  questions: { prompt: Token[]; outcomes: Token[][] }[];
  /** The order the questions' prompts are evaluated in, common heads once. */
  tree: PromptNode[];
  /** Longest stretch the sequence must hold at once. */
  peakTokens: number;
  costTokens: number;
}

/** A tokenized, planned request (`Scorer.prepare`): check its size before queueing, then score it as is. */
export interface PreparedRequest {
  /** Tokens one sequence must hold for this request (compare with `contextSize` before scoring). */
  readonly peakTokens: number;
  /** Tokens the plan evaluates at most (state prefix, every prompt and label token): its cost for admission. */
  readonly costTokens: number;
}

/** What a scorer reports for deadlines and refusals (`/readyz`, every answer). */
export interface ScorerLoad {
  /** Tokens evaluated per second of decode time, one request in one lane (an average of recent requests). */
  tokens_per_second: number;
  /** Planned tokens not yet evaluated, over every lane (admitted requests, running or waiting). */
  queued_tokens: number;
  /** Planned tokens not yet evaluated in the least loaded lane: what a new request waits behind. */
  wait_tokens: number;
  lanes: number;
}

export interface Scorer {
  readonly model: LlamaModel;
  readonly contextSize: number;
  /** What this process contributes to the numbers (backend, kernels, threads, build). */
  readonly numerics: NumericsClass;
  /** Tokenizes and plans a request once; `score` then runs that plan. */
  prepare(state: string, questions: ScoreQuestion[], framing: Framing): PreparedRequest;
  /** Scores every question of a prepared request on one sequence; see `openScorer` for the evaluation order. */
  /** `priority`: a live call (a decide, the default) waits ahead of batch ones (evaluation items); `lock.ts`. */
  score(prepared: PreparedRequest, priority?: Priority): Promise<RawScores>;
  /** `prepare` + `score`. */
  rawScores(
    state: string,
    questions: ScoreQuestion[],
    framing: Framing,
    priority?: Priority,
  ): Promise<RawScores>;
  /**
   * Prefix tokens kept from a sequence's previous request instead of evaluated, since the scorer opened (they
   * count in the requests' `tokens_evaluated`, which meters each request as from position 0); absent on stand-ins.
   */
  keptTokens?(): number;
  /** Requests that had a helper lane take part of their questions (`spreadQuestions`), since the scorer opened. */
  spreadRequests?(): number;
  /** Measured speed and queued work (the scheduler's view; see `openScorer`); absent on stand-ins. */
  load?(): ScorerLoad;
  /** Queue waits by priority and each lane's busy time, for `/metrics`; absent on stand-ins. */
  schedulerStats?(): SchedulerStats;
  close(): Promise<void>;
}

/**
 * Fewest token evaluations a shared question head must save to pay for its extra decode: a decode costs ~16 ms
 * fixed, a question token ~1.3 ms after a short state and ~14.5 ms after 2,000 tokens (attention grows with the
 * context). Measured on the 2-core Xeon, threads 1 (docs/benchmarks.md, Engine).
 */
const minSharedTokens = (position: number) => Math.max(2, Math.ceil(12.5 / (1 + position / 190)));

const lastText = (pieces: Piece[]) =>
  [...pieces].reverse().find((p) => p.text.length && !p.special)?.text ?? "";

function plan(
  model: LlamaModel,
  read: ReadRule | undefined,
  state: string,
  questions: ScoreQuestion[],
  framing: Framing,
): Plan {
  const prefix = tokenizePieces(model, framing.statePrefix(state), read);
  let peak = prefix.length;
  const qs = questions.map((q) => {
    const pieces = framing.questionPrompt(q);
    const prompt = tokenizePieces(model, pieces, read);
    if (prompt.length === 0) throw new Error(`framing ${framing.id} gave an empty question prompt`);
    const tail = lastText(pieces);
    let outcomes = framing.continuations(q).map((c) => continuationTokens(model, tail, c, read));
    // Code mode reads one next-token distribution: the first token of each answer code.
    if (framing.mode === "code") outcomes = outcomes.map((t) => t.slice(0, 1));
    const longest = Math.max(0, ...outcomes.map((t) => t.length));
    peak = Math.max(peak, prefix.length + prompt.length + longest);
    return { prompt, outcomes };
  });
  const tree = buildPromptTree(
    qs.map((q) => q.prompt),
    { maxSplitTokens: FA_TILE_ROWS, minSaved: minSharedTokens(prefix.length) },
  );
  let cost = prefix.length;
  for (const q of qs) cost += q.prompt.length + q.outcomes.reduce((n, t) => n + t.length, 0);
  return { prefix, questions: qs, tree, peakTokens: peak, costTokens: cost };
}

/**
 * Opens the model once and `lanes` contexts ("lanes", issue 30) of `sequences` sequences each, every one with
 * `threads` threads. A request is admitted to the lane with the least planned tokens pending (`LaneScheduler`)
 * and every decode of a lane runs under that lane's mutex, so a batch never mixes two requests' tokens: each
 * request is evaluated in its own sequence, from position 0 in the same chunks or on a head of its prefix the
 * sequence kept from its previous request with the same bits (prefix-reuse), which keeps answers
 * byte-identical whatever else is running and whichever lane serves it (a long request holds one lane; the
 * others keep answering). Decode time is metered: `load()` gives tokens evaluated per second of decode time.
 * Per request: the state prefix once, then the question prompts as a tree (common leading tokens once, see
 * prompt-tree), each branch rewound to its parent's end, then each question's label trie (chains of label tokens
 * in one decode, see label-walk). A live request may hand part of its tree to a lane with nothing admitted, which
 * evaluates the same prefix and heads first (helper-share): the same decodes, so the same bytes. On SmolLM2 a question's scores are bit-identical alone and among others; on
 * svc-1.5.0's Q4_K weights a shared head off the 4-row grid changes them slightly (docs/decisions.md,
 * "Prompt-tree heads on Q4_K"). Flash attention is the layout's, on for svc-1 (what node-llama-cpp's "auto" chose on CPU when the calibrations were fitted;
 * off changes logits by ~0.06).
 */
export async function openScorer(opts: ScorerOptions): Promise<Scorer> {
  const llama: Llama = await getLlama({
    gpu: opts.gpu ?? "auto",
    build: "never",
    logLevel: LlamaLogLevel.error,
  });
  const rope = opts.ropeScaling;
  const model = await llama.loadModel({
    modelPath: opts.modelPath,
    ...(rope && {
      // node-llama-cpp's type for the llama architecture lists no `rope.scaling`; llama.cpp reads the keys.
      metadataOverrides: {
        llama: {
          rope: {
            scaling: {
              type: rope.type,
              factor: rope.factor,
              original_context_length: rope.originalContextLength,
            },
          },
        },
      } as unknown as LlamaModelOptions["metadataOverrides"],
    }),
  });
  const contextSize = opts.contextSize ?? 8192;
  const layout = opts.layout ?? SVC1_LAYOUT;
  if (layout.ubatch !== layout.batch)
    throw new Error("node-llama-cpp sets the micro-batch to the batch: a layout needs ubatch = batch");
  // One context per lane, each with the same threads, batch and flash attention (so the same numbers).
  const lanes = Math.max(1, opts.lanes ?? 1);
  const contexts: LlamaContext[] = [];
  const laneSeqs: LlamaContextSequence[][] = [];
  for (let i = 0; i < lanes; i++) {
    const context = await model.createContext({
      sequences: opts.sequences,
      contextSize,
      batchSize: layout.batch,
      flashAttention: layout.flash_attention,
      threads: { ideal: opts.threads, min: opts.threads },
    });
    contexts.push(context);
    const seqs: LlamaContextSequence[] = [];
    for (let j = 0; j < opts.sequences; j++) seqs.push(context.getSequence());
    laneSeqs.push(seqs);
  }
  const numerics = await numericsClassOf(llama, opts.threads);
  const read = opts.reads === "svc1-tokenizable" ? svc1Readable : undefined;
  const scheduler = new LaneScheduler(laneSeqs, opts.liveBoard);
  // The rules were measured on the pinned CPU variant (prefix-reuse); other kernels evaluate every prefix whole.
  const reuse = prefixReuseMeasuredOn(numerics) && opts.reusePrefixes !== false;
  const spread = opts.spreadQuestions !== false && lanes > 1;
  // Per sequence, the state prefix its previous request evaluated whole (what its first tokens hold).
  const heldPrefix = new WeakMap<LlamaContextSequence, readonly Token[]>();
  let keptTotal = 0;
  let spreadTotal = 0;
  const speed = new SpeedMeter();

  async function score(seq: LlamaContextSequence, p: Plan, admission: Admission<LlamaContextSequence>) {
    const meter: Meter = { tokens_evaluated: 0, tokens_reused: 0 };
    const scores: number[][] = p.questions.map(() => []);
    const tokensPerOutcome = p.questions.map((q) => q.outcomes.map((t) => t.length));
    const labelTokens = (qi: number) =>
      (p.questions[qi] as Plan["questions"][number]).outcomes.reduce((n, t) => n + t.length, 0);
    const split =
      spread && admission.priority === "live"
        ? helperShare(p.tree, p.prefix.length, labelTokens, layout.batch)
        : undefined;
    const helped =
      split &&
      scheduler.helper(admission.lane, p.prefix.length + split.helperTokens, (hseq, hadm) =>
        onSequence(hseq, hadm, p, { path: split.path, nodes: split.helper, metered: false }, meter, scores),
      );
    if (!split || !helped)
      await onSequence(seq, admission, p, { path: [], nodes: p.tree, metered: true }, meter, scores);
    else {
      spreadTotal++;
      // Both settle before the sequences go back to their pools; the first failure is the request's.
      const mine = onSequence(
        seq,
        admission,
        p,
        { path: split.path, nodes: split.mine, metered: true },
        meter,
        scores,
      );
      for (const r of await Promise.allSettled([mine, helped])) if (r.status === "rejected") throw r.reason;
    }
    return { scores, tokensPerOutcome, meter };
  }

  /**
   * On one sequence: the state prefix (or a kept head of it, prefix-reuse), the shared heads of `path`, then the
   * question prompts of `nodes` as a walk of the prompt tree, each answer written to `scores`. A helper lane runs
   * this for its share of the request (`helperShare`): every question sees the same tokens at the same positions,
   * so the same bits. The meter counts the prefix and the path once: on the request's own lane (`metered`).
   */
  async function onSequence(
    seq: LlamaContextSequence,
    admission: Admission<LlamaContextSequence>,
    p: Plan,
    share: { path: PromptNode[]; nodes: PromptNode[]; metered: boolean },
    meter: Meter,
    scores: number[][],
  ) {
    const mutex = admission.lane.mutex;
    // Every decode of the lane under its mutex (no batch mixes two requests); timed for the speed meter.
    const decode = {
      run: async <T>(tokens: number, fn: () => Promise<T>): Promise<T> => {
        const timed = async () => {
          // A request whose caller went away stops here, at a decode boundary, and frees its sequence.
          checkCancelled();
          const t0 = performance.now();
          const out = await fn();
          speed.add(tokens, (performance.now() - t0) / 1000);
          admission.evaluated(tokens);
          return out;
        };
        if (opts.isolateRequests === false) return timed();
        await admission.turn(cancelSignal());
        checkCancelled();
        return mutex.run(timed, admission.priority);
      },
    };
    const run = async (items: ControlledEvaluateInputItem[], metered = true) => {
      if (metered) {
        meter.tokens_reused += seq.nextTokenIndex;
        meter.tokens_evaluated += items.length;
      }
      return decode.run(items.length, () => seq.controlledEvaluate(items));
    };
    const rewind = (to: number) =>
      seq.nextTokenIndex > to
        ? seq.eraseContextTokenRanges([{ start: to, end: seq.nextTokenIndex }])
        : undefined;

    // What the previous request left in this sequence and may stay (prefix-reuse: same bits as from position 0);
    // forgotten until this prefix is whole again, so a request that fails midway leaves nothing to trust.
    const keep = reuse ? reusableTokens(heldPrefix.get(seq) ?? [], p.prefix, layout.batch) : 0;
    heldPrefix.delete(seq);
    if (keep === 0) await seq.clearHistory();
    else await rewind(keep);
    keptTotal += keep;
    // One decode per `batch` tokens from position 0, as node-llama-cpp would split it, but each under the lane's
    // mutex on its own: other sequences of the lane get their turn between chunks, and a cancelled request stops
    // here. A kept head shortens the first chunk only.
    for (let i = keep; i < p.prefix.length; ) {
      const chunk = p.prefix.slice(i, (Math.floor(i / layout.batch) + 1) * layout.batch);
      await decode.run(chunk.length, () => seq.evaluateWithoutGeneratingNewTokens(chunk));
      i += chunk.length;
    }
    heldPrefix.set(seq, p.prefix);
    // The meter is the request's own, as evaluated once from position 0, so a response is the same bytes whatever
    // the sequence held before and however many lanes took part; what was kept is counted apart (`keptTokens`).
    if (share.metered) meter.tokens_evaluated += p.prefix.length;
    try {
      for (const head of share.path) await run(head.tokens as Token[], share.metered);
      await walkQuestions(seq, p, share.nodes, run, rewind, scores);
    } catch (err) {
      // A decode that failed may have left cells the sequence does not list: the next request clears it.
      heldPrefix.delete(seq);
      throw err;
    }
  }

  /** Walks `nodes` of the prompt tree on `seq` (on top of the state prefix), writing each answer to `scores`. */
  async function walkQuestions(
    seq: LlamaContextSequence,
    p: Plan,
    nodes: PromptNode[],
    run: (items: ControlledEvaluateInputItem[]) => ReturnType<LlamaContextSequence["controlledEvaluate"]>,
    rewind: (to: number) => Promise<void> | undefined,
    scores: number[][],
  ) {
    const walkSeq: WalkSequence = { run, rewind, position: () => seq.nextTokenIndex };
    // Evaluates the last stretch of question `qi`'s prompt, reads its answer distribution, walks its label trie.
    const answer = async (qi: number, tokens: Token[]) => {
      const q = p.questions[qi] as Plan["questions"][number];
      const trie: Trie = buildTrie(q.outcomes);
      const items: ControlledEvaluateInputItem[] = tokens.slice(0, -1);
      items.push(nextItem(tokens[tokens.length - 1] as Token, trie.children));
      const out = await run(items);
      const s = await scoreOutcomes(
        trie,
        q.outcomes.length,
        logProbs(out[items.length - 1]),
        walkSeq,
        FA_TILE_ROWS - 1,
      );
      scores[qi] = s;
    };
    // Shared prompt heads are evaluated once; every branch rewinds to where its parent ended.
    const walk = async (level: PromptNode[]) => {
      const at = seq.nextTokenIndex;
      for (const n of level) {
        await rewind(at);
        if (n.question !== undefined) await answer(n.question, n.tokens as Token[]);
        else {
          await run(n.tokens as Token[]);
          await walk(n.children);
        }
      }
    };
    await walk(nodes);
  }

  const scorePlan = async (prepared: PreparedRequest, priority: Priority = "live") => {
    const p = prepared as Plan;
    if (p.peakTokens > contextSize)
      throw new Error(`request needs ${p.peakTokens} tokens in one sequence; context holds ${contextSize}`);
    const queuedAt = performance.now();
    return scheduler.run(
      p.costTokens,
      async (seq, admission) => {
        const startedAt = performance.now();
        queueWaitOf(priority).observe((startedAt - queuedAt) / 1000);
        try {
          return await score(seq, p, admission);
        } finally {
          laneBusySeconds[admission.lane.index] =
            (laneBusySeconds[admission.lane.index] ?? 0) + (performance.now() - startedAt) / 1000;
        }
      },
      priority,
    );
  };
  const queueWaits = new Map<string, Histogram>();
  const queueWaitOf = (priority: Priority) => {
    const h = queueWaits.get(priority) ?? new Histogram();
    queueWaits.set(priority, h);
    return h;
  };
  const laneBusySeconds: number[] = scheduler.lanes.map(() => 0);
  return {
    model,
    contextSize,
    numerics,
    prepare: (state, questions, framing) => plan(model, read, state, questions, framing),
    score: scorePlan,
    load() {
      const q = scheduler.queued();
      return {
        tokens_per_second: Math.round(speed.tokensPerSecond() * 10) / 10,
        queued_tokens: q.total,
        wait_tokens: q.least,
        lanes,
      };
    },
    schedulerStats: () => ({
      numericsClass: numerics.id,
      queueWait: queueWaits,
      lanes: scheduler.lanes.map((l, i) => ({
        sequences: l.sequences,
        busySequences: l.sequences - l.pool.available(),
        busySeconds: laneBusySeconds[i] ?? 0,
      })),
    }),
    keptTokens: () => keptTotal,
    spreadRequests: () => spreadTotal,
    rawScores: (state, questions, framing, priority) =>
      scorePlan(plan(model, read, state, questions, framing), priority),
    async close() {
      for (const c of contexts) await c.dispose();
      await model.dispose();
      await llama.dispose();
    },
  };
}
