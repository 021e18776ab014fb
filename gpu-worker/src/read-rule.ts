/**
 * What a model that does not share the svc-1 tokenizer reads of the caller's text, so that what is billed bounds
 * what is read (docs/decisions.md, "svc-1.5.0"). The svc-1 tokenizer has no token for the bytes 0x04, 0x06, 0x13,
 * 0x14, 0x16 and 0x1D (llama.cpp drops them: a ~240 KB body of U+0004 counts as one token), nor for the UTF-8
 * lead bytes of U+40000–U+BFFFF (unassigned planes 4–11: only their continuation bytes count). A byte-level
 * model would read every one of those bytes; here the six characters are dropped and each code point of
 * planes 4–11 reads as U+FFFD. Measured: no adversarial text then has more tokens for Qwen2.5 than svc-1 bills.
 */
const UNTOKENIZED = /[\u0004\u0006\u0013\u0014\u0016\u001d]/g;
const UNASSIGNED_PLANES = /[\u{40000}-\u{BFFFF}]/gu;

export function svc1Readable(text: string): string {
  return text.replace(UNTOKENIZED, "").replace(UNASSIGNED_PLANES, "\uFFFD");
}
