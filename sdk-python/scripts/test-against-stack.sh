#!/usr/bin/env bash
# The Python SDK's tests against a fresh `npm start` (CI step 6-python-sdk; locally the same):
# a virtual environment made with pip (.cache/venv-sdk, no apt), the stack on a free port with its data in a
# temp dir (the GPU worker included), then pytest with the stack's base address and demo keys. Bounded: the
# stack gets 180 s to come up and pytest 300 s; the stack's whole process group is stopped on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."

VENV=.cache/venv-sdk
OUT=.cache/python-sdk
mkdir -p "$OUT"

t0=$(date +%s)
if [ ! -x "$VENV/bin/pytest" ] || ! "$VENV/bin/python" -c 'import svc_decide, mypy, vermin' 2>/dev/null; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/pip" install --quiet --disable-pip-version-check -e "sdk-python[test]"
echo "python-sdk: venv ready in $(($(date +%s) - t0)) s ($("$VENV/bin/python" --version))"

PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
DATA=$(mktemp -d "${TMPDIR:-/tmp}/svc-python-sdk.XXXXXX")
# Its own process group (setsid), so that stopping it reaches every process npm start started.
PORT=$PORT SVC_DATA_DIR=$DATA setsid node_modules/.bin/tsx scripts/start.ts >"$OUT/stack.log" 2>&1 &
STACK=$!
stop_stack() {
  kill -TERM -- "-$STACK" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$STACK" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$STACK" 2>/dev/null || true
  rm -rf "$DATA"
}
trap stop_stack EXIT

t1=$(date +%s)
for _ in $(seq 1 360); do
  [ -f "$DATA/demo.json" ] && break
  if ! kill -0 "$STACK" 2>/dev/null; then cat "$OUT/stack.log" >&2; exit 1; fi
  sleep 0.5
done
[ -f "$DATA/demo.json" ] || { echo "python-sdk: the stack did not come up" >&2; cat "$OUT/stack.log" >&2; exit 1; }
echo "python-sdk: npm start ready in $(($(date +%s) - t1)) s"

demo() { node -p "require('$DATA/demo.json').$1"; }
SVC_BASE_URL=$(demo base_url) SVC_API_KEY=$(demo live_key) SVC_TEST_KEY=$(demo test_key) SVC_STACK_REQUIRED=1 \
  timeout 300 "$VENV/bin/pytest" sdk-python -p no:cacheprovider -q
