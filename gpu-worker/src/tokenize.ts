import type { LlamaModel, Token } from "node-llama-cpp";
import type { Piece } from "./framings";

/** How caller text is read before tokenizing (identity, or `svc1Readable` for a model of another vocabulary). */
export type ReadRule = (text: string) => string;
const asSent: ReadRule = (text) => text;

/**
 * Tokenizes framing pieces one by one: `special` scaffolding with special tokens ON, all other text OFF and read
 * through `read`.
 */
export function tokenizePieces(model: LlamaModel, pieces: Piece[], read: ReadRule = asSent): Token[] {
  const out: Token[] = [];
  for (const p of pieces) {
    const text = p.special === true ? p.text : read(p.text);
    if (text.length) out.push(...model.tokenize(text, p.special === true));
  }
  return out;
}

/**
 * Tokens of `continuation` as they appear right after `contextTail` (the last piece before it): tokenize both
 * together and keep the tail. BPE can merge across the boundary; when the context's own tokens are not a prefix
 * of the joint tokenization the split is unstable, and the continuation is tokenized alone instead.
 */
export function continuationTokens(
  model: LlamaModel,
  contextTail: string,
  continuation: string,
  read: ReadRule = asSent,
): Token[] {
  contextTail = read(contextTail);
  continuation = read(continuation);
  if (!contextTail) return model.tokenize(continuation, false);
  const head = model.tokenize(contextTail, false);
  const joint = model.tokenize(contextTail + continuation, false);
  const stable = joint.length > head.length && head.every((t, i) => joint[i] === t);
  return stable ? joint.slice(head.length) : model.tokenize(continuation, false);
}
