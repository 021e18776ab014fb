import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DATA_DIR } from "./build-dataset";
import type { EvalItem } from "./dataset/item";

/** The committed dataset, all three types, in file order. */
export function loadDataset(dir = DATA_DIR): EvalItem[] {
  return (["pick", "rate", "check"] as const).flatMap((t) =>
    readFileSync(join(dir, `${t}.jsonl`), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as EvalItem),
  );
}
