import type { NumericsClass } from "./numerics";

/**
 * Which leading tokens of a state prefix a sequence may keep from the request it served before, so that the
 * new request's answers are bit-identical to evaluating its prefix from position 0 (issue 29, latency).
 *
 * A prefix is evaluated in decodes of `batch` tokens from position 0 (scorer). Measured on ggml's CPU kernels
 * (docs/decisions.md, "Prefix reuse"), a token's keys and values come out with the same bits in another
 * decode only when
 * - its decode has the same attention kernel: flash attention is tiled from `FA_TILE_ROWS` query rows per
 *   decode and not below, so a decode of ≥ 64 rows and one of < 64 differ;
 * - it sits in the same group of 4 rows: the repacked Q4 matrix kernels multiply rows 4 at a time from the
 *   decode's first row and the trailing 1–3 rows one by one, with other rounding.
 * Within those, where the decode starts and how many rows it has do not change a row's bits (a 200-row prefix
 * as 100 + 100 or 136 + 64 rows: same; as 24 + 176 or 148 + 52: not).
 */

/**
 * Where the rules below were measured: ggml's `haswell` CPU variant, the one `npm run setup` pins (numerics
 * classes). Other kernels (another variant, a GPU) may group rows otherwise, so there every prefix is evaluated
 * from position 0.
 */
export const prefixReuseMeasuredOn = (c: Pick<NumericsClass, "backend" | "device">) =>
  c.backend === "cpu" && c.device === "haswell";

/** ggml's CPU flash attention uses another (tiled) kernel from this many query rows per decode. */
export const FA_TILE_ROWS = 64;
/** Rows the repacked matrix kernels take together; a split point on this grid keeps every group whole. */
const ROW_GROUP = 4;

const kernelOf = (rows: number) => rows >= FA_TILE_ROWS;
const down = (n: number, step: number) => n - (n % step);

/**
 * How many of `prefix`'s leading tokens may be kept from `held`, the state prefix the sequence's previous request
 * evaluated (0: clear the sequence). Whole chunks both prefixes evaluated alike are kept; inside the chunk where
 * they part, a split point on the row grid where the held rows came from a decode with the new decode's kernel,
 * and the rows left to evaluate keep that kernel too.
 */
export function reusableTokens(held: readonly number[], prefix: readonly number[], batch: number): number {
  const limit = Math.min(held.length, prefix.length);
  let common = 0;
  while (common < limit && held[common] === prefix[common]) common++;

  const base = down(common, batch);
  const oldRows = Math.min(held.length, base + batch) - base;
  const newRows = Math.min(prefix.length, base + batch) - base;
  if (newRows <= 0 || kernelOf(oldRows) !== kernelOf(newRows)) return base;
  let split = Math.min(down(common - base, ROW_GROUP), down(oldRows, ROW_GROUP));
  if (kernelOf(newRows)) split = Math.min(split, newRows - FA_TILE_ROWS);
  return base + Math.max(0, down(split, ROW_GROUP));
}
