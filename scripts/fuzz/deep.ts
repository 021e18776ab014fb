import fc from "fast-check";
import type { Raw } from "./tree";

const SHAPES = {
  array: ["[", "]"],
  object: ['{"a":', "}"],
  mixed: ['[{"a":', "}]"],
} as const;

/**
 * A value nested thousands deep, written out as one raw token (the tree writer recurses; these never go
 * through it): arrays, objects, or both alternating, 2,000 to 250,000 characters (a few over the 256 KiB body
 * limit once in a body), with a scalar or an empty container at the bottom, or left unclosed. Issue 45
 * item 9: every body parser answers these with the spec's 400/413/422, never 500.
 */
export const deepNest: fc.Arbitrary<Raw> = fc
  .tuple(
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 2_000, max: 20_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 250_000 }) },
    ),
    fc.constantFrom(...(Object.keys(SHAPES) as (keyof typeof SHAPES)[])),
    fc.constantFrom("1", '"x"', "[]", "{}", "null", "unclosed"),
  )
  .map(([chars, shape, bottom]) => {
    const [open, close] = SHAPES[shape];
    const levels = Math.max(1, Math.floor(chars / (open.length + close.length)));
    const tail = bottom === "unclosed" ? "1" : `${bottom}${close.repeat(levels)}`;
    return { raw: `${open.repeat(levels)}${tail}` };
  });
