// The SDK checked against an OpenAPI document (`GET /v1/openapi.json`): used by the unit tier on the
// document generated in-process and by the integration tier on the one the running Worker serves.
import {
  CONSOLE_PATH_PREFIX,
  ERROR_TYPE_STATUS,
  type ErrorType,
  isKnownCode,
  KNOWN_CODES,
  NAMESPACED_METHODS,
  OPERATIONS,
  type OpenApiDocument,
  SvcClient,
} from "../../sdk/src/index";

interface ErrorEnvelopeSchema {
  properties?: { error?: { properties?: { type?: { enum?: string[] }; code?: { enum?: string[] } } } };
}

/** The document's public operations (console routes are not the SDK's): `METHOD path` → operation. */
export function publicOperations(doc: OpenApiDocument) {
  const out = new Map<
    string,
    { operationId?: string; security?: unknown[]; responses: Record<string, unknown> }
  >();
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (path.startsWith(CONSOLE_PATH_PREFIX)) continue;
    for (const [method, op] of Object.entries(methods)) out.set(`${method.toUpperCase()} ${path}`, op);
  }
  return out;
}

/**
 * What does not match: a public operation without an SDK method (or with other auth), an SDK operation the
 * document lacks (allowed for `pending`), an error status whose type the SDK maps elsewhere, or a code the
 * SDK neither knows nor can handle by its type. Empty when the SDK covers the document.
 */
export function sdkMismatches(doc: OpenApiDocument, pending: readonly string[] = []): string[] {
  const problems: string[] = [];
  const ops = publicOperations(doc);
  const sdk = new Map(
    Object.entries(OPERATIONS).map(([name, o]) => [`${o.method} ${o.path}`, { name, ...o }]),
  );
  for (const [key, op] of ops) {
    const mine = sdk.get(key);
    if (!mine) {
      problems.push(`${key} (${op.operationId}) has no SDK method`);
      continue;
    }
    const method = clientMethodName(mine.name);
    if (typeof clientMethod(method) !== "function") problems.push(`SvcClient has no method ${method}`);
    const needsKey = (op.security ?? []).length > 0;
    if (needsKey !== mine.auth) problems.push(`${key}: document auth ${needsKey}, SDK ${mine.auth}`);
    problems.push(...errorMismatches(key, op.responses));
  }
  for (const [key, mine] of sdk)
    if (!ops.has(key) && !pending.includes(mine.name))
      problems.push(`SDK ${mine.name} (${key}) is not in the document`);
  return problems;
}

/** The client method an operation id is called through: its own name, or `namespace.method`. */
export function clientMethodName(operation: string): string {
  return (NAMESPACED_METHODS as Record<string, string>)[operation] ?? operation;
}

/** The function at `path` (`decide`, `batches.create`) of a client. */
export function clientMethod(path: string): unknown {
  const client = new SvcClient({ baseUrl: "http://contract.test" });
  let at: unknown = client;
  for (const part of path.split(".")) at = (at as Record<string, unknown> | undefined)?.[part];
  return at;
}

/** The error responses of an operation: status, the envelope's `type` and its `code` enum. */
function errorResponses(
  responses: Record<string, unknown>,
): Array<{ status: number; type: string; codes: string[] }> {
  const out: Array<{ status: number; type: string; codes: string[] }> = [];
  for (const [status, response] of Object.entries(responses)) {
    if (Number(status) < 400) continue;
    const content = (response as { content?: Record<string, { schema?: ErrorEnvelopeSchema }> }).content;
    const fields = content?.["application/json"]?.schema?.properties?.error?.properties;
    out.push({
      status: Number(status),
      type: fields?.type?.enum?.[0] ?? "",
      codes: fields?.code?.enum ?? [],
    });
  }
  return out;
}

function errorMismatches(key: string, responses: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const { status, type, codes } of errorResponses(responses)) {
    if (!(type in ERROR_TYPE_STATUS)) {
      problems.push(`${key} ${status}: type "${type}" unknown to the SDK`);
      continue;
    }
    if (ERROR_TYPE_STATUS[type as ErrorType] !== status)
      problems.push(`${key} ${status}: the SDK maps ${type} to ${ERROR_TYPE_STATUS[type as ErrorType]}`);
    // A code the SDK does not know is handled by its type; a known one must sit under the same type.
    for (const code of codes)
      if (isKnownCode(code) && !(KNOWN_CODES[type as ErrorType] as readonly string[]).includes(code))
        problems.push(`${key} ${status}: ${code} is known to the SDK under another type`);
  }
  return problems;
}

/** Every code the document lists, with the type it is listed under. */
export function documentCodes(doc: OpenApiDocument): Map<string, string> {
  const out = new Map<string, string>();
  for (const op of publicOperations(doc).values())
    for (const { type, codes } of errorResponses(op.responses)) for (const code of codes) out.set(code, type);
  return out;
}
