import { ApiError } from "../errors";

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** True for 1 to `max` printable ASCII characters 0x21–0x7E (no spaces). */
export const isTokenHeader = (value: string, max: number): boolean =>
  value.length >= 1 && value.length <= max && PRINTABLE_ASCII.test(value);

/**
 * Validates a token header (spec: 1 to `max` printable ASCII characters 0x21–0x7E, no spaces).
 * Returns the value (or undefined when absent); throws 400 `invalid_header` with `param` = the header name.
 */
export function validateTokenHeader(
  value: string | undefined,
  name: string,
  max: number,
): string | undefined {
  if (value === undefined) return undefined;
  if (!isTokenHeader(value, max)) {
    throw new ApiError("invalid_header", {
      param: name,
      message: `\`${name}\` must be 1 to ${max} printable ASCII characters without spaces.`,
    });
  }
  return value;
}
