/**
 * Identifier patterns: a resource prefix plus a 26-character Crockford base32 ULID (spec: `x-request-id`,
 * Key object). One definition each, used by the edge, the OpenAPI document and the tests.
 */
const ULID = "[0-9A-HJKMNP-TV-Z]{26}";

export const REQUEST_ID_PATTERN = new RegExp(`^req_${ULID}$`);
export const ACCOUNT_ID_PATTERN = new RegExp(`^acc_${ULID}$`);
export const KEY_ID_PATTERN = new RegExp(`^key_${ULID}$`);
