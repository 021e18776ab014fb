/**
 * Every 37th code point in letter/space/digit/apostrophe neighbourhoods, folded into an FNV-1a digest of the
 * ids. The integration tier pins the digest against llama.cpp's own ids; the worker tier checks the pure-JS
 * ids inside workerd give the same one. No Node APIs: it runs in both.
 */
export const SWEEP_DIGEST = "623881:edd2df85";

function* sweepTexts(): Generator<string> {
  let s = "";
  for (let cp = 0; cp < 0x110000; cp += 37) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    const c = String.fromCodePoint(cp);
    s += `a${c}b ${c}${c}1 '${c}s\n`;
    if (s.length > 4000) {
      yield s;
      s = "";
    }
  }
  yield s;
}

export function sweepDigest(tokenize: (text: string) => ArrayLike<number>): string {
  let h = 0x811c9dc5;
  let n = 0;
  for (const text of sweepTexts()) {
    const ids = tokenize(text);
    for (let i = 0; i < ids.length; i++) h = Math.imul(h ^ ids[i]!, 0x01000193) >>> 0;
    n += ids.length;
  }
  return `${n}:${h.toString(16)}`;
}
