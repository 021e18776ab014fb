import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapePointerToken, parseJsonPointer, toJsonPointer } from "../../../schema/json-pointer";

describe("RFC 6901: `~` is written `~0` and `/` is written `~1`", () => {
  it.each([
    ["a", "a"],
    ["a/b", "a~1b"],
    ["m~n", "m~0n"],
    ["~1", "~01"],
    ["/~", "~1~0"],
    ["", ""],
  ])("%s → %s", (token, escaped) => expect(escapePointerToken(token)).toBe(escaped));

  it.each([
    [[], ""],
    [[""], "/"],
    [["foo", 0], "/foo/0"],
    [["a/b", "c%d", "e^f", "g|h", "i\\j", 'k"l', " ", "m~n"], '/a~1b/c%d/e^f/g|h/i\\j/k"l/ /m~0n'],
  ] as const)("RFC 6901 examples: %j → %s", (path, pointer) => {
    expect(toJsonPointer(path)).toBe(pointer);
    expect(parseJsonPointer(pointer)).toEqual(path.map(String));
  });

  it("round-trips any path", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "grapheme" })), (path) => {
        expect(parseJsonPointer(toJsonPointer(path))).toEqual(path);
      }),
    );
  });

  it.each(["a", "/~2", "/~"])("rejects malformed pointer %s", (p) => expect(parseJsonPointer(p)).toBeNull());
});
