// Issue 43: what an edge log must never hold, checked line by line (the redaction test, and the integration
// tier's run log at its global teardown: test/setup/global-stack.ts).

/** Secret material by shape: API keys (ours and Stripe's), session tokens, the session cookie, bearer headers. */
export const SECRET_SHAPES: readonly RegExp[] = [
  /\b(?:svc|sk|rk)_(?:live|test)_[0-9A-Za-z]{8,}/,
  /\bsvc_ses_[A-Za-z0-9_-]{8,}/,
  /svc_session=/i,
  /\bBearer\s+\S/i,
  /\bwhsec_[0-9A-Za-z]{8,}/,
];

export interface LogProblem {
  line: number;
  problem: string;
}

/**
 * Every problem of a JSON-lines log: a line that is not a JSON object with a string `level` and `event`, a
 * secret by shape, or any of `exact` (secrets, cookie values, CSRF tokens, state or question text the caller
 * sent). Problems name the line and what was found by kind, never the secret itself.
 */
export function scanLog(text: string, exact: readonly string[] = []): LogProblem[] {
  const problems: LogProblem[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const line = i + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      problems.push({ line, problem: "not JSON" });
    }
    const o = parsed as { level?: unknown; event?: unknown } | undefined;
    if (parsed !== undefined && (typeof o?.level !== "string" || typeof o?.event !== "string"))
      problems.push({ line, problem: "no level or event" });
    SECRET_SHAPES.forEach((re, n) => {
      if (re.test(raw)) problems.push({ line, problem: `secret shape #${n}` });
    });
    exact.forEach((s, n) => {
      if (s && raw.includes(s)) problems.push({ line, problem: `exact value #${n}` });
    });
  });
  return problems;
}
