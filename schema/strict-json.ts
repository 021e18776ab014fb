import { type JsonObject, type JsonValue, toPlain } from "./json";
import { toJsonPointer } from "./json-pointer";

/**
 * Strict JSON parsing of a decide body (spec: `invalid_json`, `duplicate_key`). RFC 8259 grammar exactly as
 * `JSON.parse` accepts it, plus two rejections: a `\u` escape that is half a surrogate pair, and an object
 * that repeats a key. Iterative (an explicit stack), so nesting depth is bounded only by input size.
 */
export type StrictJsonResult =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly code: "invalid_json"; readonly message: string; readonly offset: number }
  | {
      readonly ok: false;
      readonly code: "duplicate_key";
      readonly message: string;
      readonly pointer: string;
    };

interface ArrayFrame {
  readonly obj: false;
  readonly items: JsonValue[];
}

interface ObjectFrame {
  readonly obj: true;
  readonly entries: [string, JsonValue][];
  keys: Set<string> | null;
  key: string;
}

type Frame = ArrayFrame | ObjectFrame;

class SyntaxFail {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

/** Objects up to this many members check repeats by scanning; bigger ones keep a Set. */
const LINEAR_DUP_LIMIT = 12;

const HEX: Int8Array = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 10; i++) t[48 + i] = i;
  for (let i = 0; i < 6; i++) {
    t[65 + i] = 10 + i;
    t[97 + i] = 10 + i;
  }
  return t;
})();

const ESCAPES: Record<number, string> = {
  34: '"',
  92: "\\",
  47: "/",
  98: "\b",
  102: "\f",
  110: "\n",
  114: "\r",
  116: "\t",
};

/** Parse `text` strictly; never throws. Parse errors win over duplicate keys (spec's order of checks). */
export function parseStrictJson(text: string): StrictJsonResult {
  const p = new StrictParser(text);
  try {
    const value = p.parseDocument();
    if (p.duplicate !== null) {
      return { ok: false, code: "duplicate_key", pointer: p.duplicate, message: "An object repeats a key." };
    }
    return { ok: true, value };
  } catch (e) {
    if (e instanceof SyntaxFail) {
      return { ok: false, code: "invalid_json", message: e.message, offset: e.offset };
    }
    throw e;
  }
}

class StrictParser {
  pos = 0;
  duplicate: string | null = null;
  private readonly stack: Frame[] = [];

  constructor(private readonly text: string) {}

  parseDocument(): JsonValue {
    const { text, stack } = this;
    const len = text.length;
    this.skipWs();
    if (this.pos >= len) this.fail("The body is empty.");
    for (;;) {
      let value: JsonValue;
      const c = text.charCodeAt(this.pos);
      if (c === 0x7b /* { */) {
        this.pos++;
        this.skipWs();
        if (text.charCodeAt(this.pos) === 0x7d) {
          this.pos++;
          value = { kind: "object", entries: [] };
        } else {
          const frame: ObjectFrame = { obj: true, entries: [], keys: null, key: "" };
          stack.push(frame);
          this.readMemberKey(frame);
          continue;
        }
      } else if (c === 0x5b /* [ */) {
        this.pos++;
        this.skipWs();
        if (text.charCodeAt(this.pos) === 0x5d) {
          this.pos++;
          value = [];
        } else {
          stack.push({ obj: false, items: [] });
          continue;
        }
      } else if (c === 0x22) value = this.parseString();
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) value = this.parseNumber();
      else if (c === 0x74) value = this.literal("true", true);
      else if (c === 0x66) value = this.literal("false", false);
      else if (c === 0x6e) value = this.literal("null", null);
      else this.fail(this.pos >= len ? "Unexpected end of the body." : "Unexpected character.");

      // Attach the finished value to its parents, closing every container that ends here.
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) {
          this.skipWs();
          if (this.pos !== len) this.fail("Unexpected data after the JSON value.");
          return value;
        }
        this.skipWs();
        const d = text.charCodeAt(this.pos);
        if (top.obj) {
          top.entries.push([top.key, value]);
          if (d === 0x2c) {
            this.pos++;
            this.skipWs();
            this.readMemberKey(top);
            break;
          }
          if (d !== 0x7d) this.fail("Expected ',' or '}'.");
          this.pos++;
          value = { kind: "object", entries: top.entries } satisfies JsonObject;
        } else {
          top.items.push(value);
          if (d === 0x2c) {
            this.pos++;
            this.skipWs();
            break;
          }
          if (d !== 0x5d) this.fail("Expected ',' or ']'.");
          this.pos++;
          value = top.items;
        }
        stack.pop();
      }
    }
  }

  /** Reads `"key" :` and leaves `pos` at the member's value; records the first repeated key. */
  private readMemberKey(frame: ObjectFrame): void {
    if (this.text.charCodeAt(this.pos) !== 0x22) this.fail("Expected a string key.");
    const key = this.parseString();
    this.skipWs();
    if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("Expected ':'.");
    this.pos++;
    this.skipWs();
    frame.key = key;
    if (this.duplicate === null && this.isRepeat(frame, key)) this.duplicate = this.pointerHere();
  }

  private isRepeat(frame: ObjectFrame, key: string): boolean {
    const entries = frame.entries;
    if (entries.length < LINEAR_DUP_LIMIT) {
      for (let i = 0; i < entries.length; i++) if (entries[i]![0] === key) return true;
      return false;
    }
    if (frame.keys === null) frame.keys = new Set(entries.map((e) => e[0]));
    if (frame.keys.has(key)) return true;
    frame.keys.add(key);
    return false;
  }

  private pointerHere(): string {
    return toJsonPointer(this.stack.map((f) => (f.obj ? f.key : f.items.length)));
  }

  private skipWs(): void {
    const text = this.text;
    let i = this.pos;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.pos = i;
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail("Unexpected character.");
    this.pos += word.length;
    return value;
  }

  private parseNumber(): number {
    const text = this.text;
    const start = this.pos;
    let i = start;
    if (text.charCodeAt(i) === 0x2d) i++;
    let c = text.charCodeAt(i);
    if (c === 0x30) i++;
    else if (c >= 0x31 && c <= 0x39) i = this.digits(i);
    else this.fail("Invalid number.", i);
    c = text.charCodeAt(i);
    if (c !== 0x2e && c !== 0x65 && c !== 0x45 && i - start <= 15) {
      // Fast path: a plain integer of at most 15 digits is exact in a double; no string allocation.
      let v = 0;
      for (let k = text.charCodeAt(start) === 0x2d ? start + 1 : start; k < i; k++)
        v = v * 10 + (text.charCodeAt(k) - 0x30);
      this.pos = i;
      return text.charCodeAt(start) === 0x2d ? -v : v;
    }
    if (text.charCodeAt(i) === 0x2e) {
      c = text.charCodeAt(++i);
      if (!(c >= 0x30 && c <= 0x39)) this.fail("Invalid number.", i);
      i = this.digits(i);
    }
    c = text.charCodeAt(i);
    if (c === 0x65 || c === 0x45) {
      c = text.charCodeAt(++i);
      if (c === 0x2b || c === 0x2d) c = text.charCodeAt(++i);
      if (!(c >= 0x30 && c <= 0x39)) this.fail("Invalid number.", i);
      i = this.digits(i);
    }
    this.pos = i;
    return Number(text.slice(start, i));
  }

  private digits(from: number): number {
    const text = this.text;
    let i = from;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) i++;
      else return i;
    }
  }

  /** At an opening quote; returns the decoded string and moves past the closing quote. */
  private parseString(): string {
    const text = this.text;
    const len = text.length;
    const start = this.pos + 1;
    let i = start;
    for (;;) {
      if (i >= len) this.fail("Unterminated string.", i);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return text.slice(start, i);
      }
      if (c === 0x5c) return this.parseEscapedString(start, i);
      if (c < 0x20) this.fail("Control character in a string.", i);
      i++;
    }
  }

  private parseEscapedString(start: number, firstEscape: number): string {
    const text = this.text;
    const len = text.length;
    let out = text.slice(start, firstEscape);
    let i = firstEscape;
    let chunk = i;
    for (;;) {
      if (i >= len) this.fail("Unterminated string.", i);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        this.pos = i + 1;
        return out + text.slice(chunk, i);
      }
      if (c < 0x20) this.fail("Control character in a string.", i);
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(chunk, i);
      const e = text.charCodeAt(i + 1);
      if (e === 0x75 /* u */) {
        const unit = this.hex4(i + 2);
        i += 6;
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("Lone surrogate escape.", i - 6);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = text.charCodeAt(i) === 0x5c && text.charCodeAt(i + 1) === 0x75 ? this.hex4(i + 2) : -1;
          if (!(low >= 0xdc00 && low <= 0xdfff)) this.fail("Lone surrogate escape.", i - 6);
          out += String.fromCharCode(unit, low);
          i += 6;
        } else out += String.fromCharCode(unit);
      } else {
        const s = ESCAPES[e];
        if (s === undefined) this.fail("Invalid escape.", i);
        out += s;
        i += 2;
      }
      chunk = i;
    }
  }

  private hex4(at: number): number {
    const t = this.text;
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = t.charCodeAt(at + k);
      const d = c < 128 ? HEX[c]! : -1;
      if (d < 0) this.fail("Invalid \\u escape.", at + k); // NaN (past the end) fails too: NaN < 128 is false
      v = (v << 4) | d;
    }
    return v;
  }

  private fail(message: string, offset: number = this.pos): never {
    throw new SyntaxFail(message, offset);
  }
}

/** Plain JS value of a tree (objects lose integer-like key order; for tests and logging only). Iterative. */
export function jsonToPlain(v: JsonValue): unknown {
  return toPlain(v);
}
