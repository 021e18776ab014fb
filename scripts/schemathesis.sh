#!/usr/bin/env bash
# npm run fuzz:schemathesis: schemathesis (pinned, from PyPI into .cache/schemathesis-venv) against a fresh
# local stack (`npm start` on a free port, data in a temp dir, no GPU worker unless SCHEMATHESIS_GPU=1: live
# keys are then answered by the fake fallback, test keys get 503 no_capacity), from the OpenAPI document
# the Worker serves. Checks: no server fault (any 5xx but a documented 503), and every status, content type,
# header and body conforms to the document. Bounded: SCHEMATHESIS_MAX_EXAMPLES per operation (default 60) and
# SCHEMATHESIS_MAX_TIME seconds (default 300). Reports go to .cache/schemathesis/. Exits non-zero on a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=4.32.5
VENV=.cache/schemathesis-venv
OUT=.cache/schemathesis
MAX_EXAMPLES=${SCHEMATHESIS_MAX_EXAMPLES:-60}
MAX_TIME=${SCHEMATHESIS_MAX_TIME:-300}
SEED=${SCHEMATHESIS_SEED:-20261123}
CHECKS=${SCHEMATHESIS_CHECKS:-status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,ignored_auth,unsupported_method}

if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$VERSION"; then
  echo "schemathesis: installing schemathesis==$VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
fi

PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
DATA=$(mktemp -d "${TMPDIR:-/tmp}/svc-schemathesis.XXXXXX")
mkdir -p "$OUT"
if [ -z "${SCHEMATHESIS_GPU:-}" ]; then export SVC_NO_GPU=1; fi
# The JSONL serializer for the batch upload (scripts/fuzz/schemathesis_hooks.py).
export SCHEMATHESIS_HOOKS=scripts/fuzz/schemathesis_hooks.py
# Its own process group, so that stopping it reaches every process npm start started.
PORT=$PORT SVC_DATA_DIR=$DATA setsid node_modules/.bin/tsx scripts/start.ts >"$OUT/stack.log" 2>&1 &
STACK=$!
stop_stack() {
  kill -TERM -- "-$STACK" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$STACK" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$STACK" 2>/dev/null || true
  rm -rf "$DATA"
}
trap stop_stack EXIT

for _ in $(seq 1 240); do
  [ -f "$DATA/demo.json" ] && break
  if ! kill -0 "$STACK" 2>/dev/null; then cat "$OUT/stack.log" >&2; exit 1; fi
  sleep 0.5
done
[ -f "$DATA/demo.json" ] || { echo "schemathesis: the stack did not come up" >&2; cat "$OUT/stack.log" >&2; exit 1; }
KEY=$(node -p "require('$DATA/demo.json').live_key")
BASE="http://127.0.0.1:$PORT"

echo "schemathesis $VERSION against $BASE: $MAX_EXAMPLES examples per operation, at most $MAX_TIME s, seed $SEED"
set +e
"$VENV/bin/st" run "$BASE/v1/openapi.json" \
  --header "Authorization: Bearer $KEY" \
  --checks "$CHECKS" \
  --phases examples,coverage,fuzzing \
  --max-examples "$MAX_EXAMPLES" --max-time "$MAX_TIME" --seed "$SEED" \
  --workers 1 --request-timeout 30 --suppress-health-check all --generation-database none \
  --report junit,ndjson --report-dir "$OUT" --no-color "$@" >"$OUT/run.log" 2>&1
status=$?
# Schemathesis' own output (pytest-style, closing on "N warnings in …s") stays in its file: a CI reader takes a
# pytest closing line without "passed" for a run that executed no test. The log gets its test-case count.
grep -A1 '^Test cases:' "$OUT/run.log" | tail -1 | sed 's/^ */schemathesis: test cases: /'
if [ "$status" -ne 0 ]; then tail -60 "$OUT/run.log"; fi
set -e
# No server fault: schemathesis' own not_a_server_error check would also fail the documented 503s (no GPU
# here), so the summary fails the run on any other 5xx (500 above all) instead.
ndjson=$(ls -t "$OUT"/ndjson-*.ndjson | head -1)
# The table of answers by operation goes to a file; the log shows its first line (or all of it on a fault).
if node_modules/.bin/tsx scripts/fuzz/schemathesis-summary.ts "$ndjson" >"$OUT/summary.txt"; then
  head -1 "$OUT/summary.txt"
else
  cat "$OUT/summary.txt"
  status=1
fi
echo "schemathesis: exit $status (reports in $OUT)"
exit $status
