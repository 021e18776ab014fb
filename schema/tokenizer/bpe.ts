import { SVC1_BYTE_IDS, SVC1_MERGES, SVC1_META } from "./data/svc1-vocab";

const TABLE_BITS = 17; // 131,072 slots for 48,900 merges
const TABLE_MASK = (1 << TABLE_BITS) - 1;

/** The vocabulary in the form the merge loop needs. */
export interface Vocab {
  /** Token id of each byte (GPT-2 bytes-to-unicode), -1 where the vocabulary has no such token. */
  byteIds: Int32Array;
  /** Open-addressing table: left * 65536 + right + 1 → merge rank. */
  keys: Uint32Array;
  ranks: Int32Array;
  mergeResultBase: number;
}

let vocab: Vocab | undefined;

/** Builds (once) the merge table from the generated data module. */
export function loadVocab(): Vocab {
  if (vocab) return vocab;
  const byteIds = Int32Array.from(SVC1_BYTE_IDS);
  const raw = atob(SVC1_MERGES);
  const keys = new Uint32Array(1 << TABLE_BITS);
  const ranks = new Int32Array(1 << TABLE_BITS);
  for (let rank = 0; rank < SVC1_META.mergeCount; rank++) {
    const o = rank * 4;
    const left = raw.charCodeAt(o) | (raw.charCodeAt(o + 1) << 8);
    const right = raw.charCodeAt(o + 2) | (raw.charCodeAt(o + 3) << 8);
    const key = left * 0x10000 + right + 1;
    let slot = hash(key);
    while (keys[slot] !== 0) slot = (slot + 1) & TABLE_MASK;
    keys[slot] = key;
    ranks[slot] = rank;
  }
  vocab = { byteIds, keys, ranks, mergeResultBase: SVC1_META.mergeResultBase };
  return vocab;
}

function hash(key: number): number {
  return Math.imul(key, 0x9e3779b1) >>> (32 - TABLE_BITS);
}

/** Merge rank of the pair (left, right), or -1. */
export function rankOf(v: Vocab, left: number, right: number): number {
  if (left < 0 || right < 0) return -1;
  const key = left * 0x10000 + right + 1;
  const keys = v.keys;
  let slot = hash(key);
  for (;;) {
    const k = keys[slot]!;
    if (k === key) return v.ranks[slot]!;
    if (k === 0) return -1;
    slot = (slot + 1) & TABLE_MASK;
  }
}

/**
 * Applies the merges to `syms[0..n)` (byte token ids, -1 for bytes without a token) in place, lowest rank
 * first and leftmost first among equal ranks (llama.cpp's queue order); returns the new length. Symbols
 * of -1 stay and are dropped by the caller, as llama.cpp drops bytes it cannot map.
 */
export function merge(v: Vocab, syms: Int32Array, n: number): number {
  if (n > 48) return mergeLong(v, syms, n);
  const base = v.mergeResultBase;
  while (n > 1) {
    let best = 0x7fffffff;
    let at = -1;
    for (let i = 0; i + 1 < n; i++) {
      const r = rankOf(v, syms[i]!, syms[i + 1]!);
      if (r >= 0 && r < best) {
        best = r;
        at = i;
      }
    }
    if (at < 0) break;
    syms[at] = base + best;
    syms.copyWithin(at + 1, at + 2, n);
    n--;
  }
  return n;
}

// Long pieces (e.g. a 60 KiB run of letters): a heap of candidate pairs keyed by (rank, left position) and a
// linked list, so the work stays O(n log n).
function mergeLong(v: Vocab, syms: Int32Array, n: number): number {
  const base = v.mergeResultBase;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1 < n ? i + 1 : -1;
    prev[i] = i - 1;
  }
  const heap = new MinHeap(n);
  const push = (left: number, right: number) => {
    if (left < 0 || right < 0) return;
    const r = rankOf(v, syms[left]!, syms[right]!);
    if (r >= 0) heap.push(r * 0x100000000 + left, right, r);
  };
  for (let i = 0; i + 1 < n; i++) push(i, i + 1);
  const dead = -2;
  while (heap.size > 0) {
    const { key, right, rank } = heap.pop();
    const left = key % 0x100000000;
    if (syms[left] === dead || syms[right] === dead || next[left] !== right) continue;
    if (rankOf(v, syms[left]!, syms[right]!) !== rank) continue;
    syms[left] = base + rank;
    syms[right] = dead;
    const after = next[right]!;
    next[left] = after;
    if (after >= 0) prev[after] = left;
    push(prev[left]!, left);
    push(left, after);
  }
  let out = 0;
  for (let i = 0; i < n; i++) if (syms[i] !== dead) syms[out++] = syms[i]!;
  return out;
}

class MinHeap {
  size = 0;
  private keys: Float64Array;
  private rights: Int32Array;
  private ranks: Int32Array;
  constructor(capacity: number) {
    this.keys = new Float64Array(capacity + 16);
    this.rights = new Int32Array(capacity + 16);
    this.ranks = new Int32Array(capacity + 16);
  }
  push(key: number, right: number, rank: number): void {
    if (this.size === this.keys.length) this.grow();
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent]! <= key) break;
      this.move(parent, i);
      i = parent;
    }
    this.keys[i] = key;
    this.rights[i] = right;
    this.ranks[i] = rank;
  }
  pop(): { key: number; right: number; rank: number } {
    const top = { key: this.keys[0]!, right: this.rights[0]!, rank: this.ranks[0]! };
    const last = --this.size;
    const key = this.keys[last]!;
    const right = this.rights[last]!;
    const rank = this.ranks[last]!;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= last) break;
      if (child + 1 < last && this.keys[child + 1]! < this.keys[child]!) child++;
      if (this.keys[child]! >= key) break;
      this.move(child, i);
      i = child;
    }
    this.keys[i] = key;
    this.rights[i] = right;
    this.ranks[i] = rank;
    return top;
  }
  private move(from: number, to: number): void {
    this.keys[to] = this.keys[from]!;
    this.rights[to] = this.rights[from]!;
    this.ranks[to] = this.ranks[from]!;
  }
  private grow(): void {
    const size = this.keys.length * 2;
    const keys = new Float64Array(size);
    const rights = new Int32Array(size);
    const ranks = new Int32Array(size);
    keys.set(this.keys);
    rights.set(this.rights);
    ranks.set(this.ranks);
    this.keys = keys;
    this.rights = rights;
    this.ranks = ranks;
  }
}
