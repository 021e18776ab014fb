/** GPT-2's byte → printable character mapping (the alphabet of byte-level BPE token strings). */
export function bytesToUnicode(): number[] {
  const map = new Array<number>(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    map[b] = printable ? b : 256 + extra++;
  }
  return map;
}
