import { SVC1_CATEGORIES } from "./data/svc1-vocab";

/** Codepoint classes as llama.cpp's smollm pre-tokenizer sees them. */
export const OTHER = 0;
export const LETTER = 1;
export const NUMBER = 2;
export const WHITESPACE = 3;

let bmp: Uint8Array | undefined;
let astralStarts: Uint32Array | undefined;
let astralClasses: Uint8Array | undefined;

function init(): Uint8Array {
  const table = new Uint8Array(0x10000);
  const starts: number[] = [];
  const classes: number[] = [];
  for (let i = 0; i < SVC1_CATEGORIES.length; i += 2) {
    const start = SVC1_CATEGORIES[i]!;
    const cls = SVC1_CATEGORIES[i + 1]!;
    const end = i + 2 < SVC1_CATEGORIES.length ? SVC1_CATEGORIES[i + 2]! : 0x110000;
    if (start < 0x10000) table.fill(cls, start, Math.min(end, 0x10000));
    if (end > 0x10000) {
      starts.push(Math.max(start, 0x10000));
      classes.push(cls);
    }
  }
  astralStarts = Uint32Array.from(starts);
  astralClasses = Uint8Array.from(classes);
  bmp = table;
  return table;
}

/** The class (OTHER, LETTER, NUMBER, WHITESPACE) of a codepoint, from llama.cpp's pinned unicode tables. */
export function classOf(cp: number): number {
  if (cp < 0x10000) return (bmp ?? init())[cp]!;
  if (!astralStarts) init();
  const starts = astralStarts!;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return astralClasses![lo]!;
}
