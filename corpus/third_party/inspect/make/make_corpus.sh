#!/usr/bin/env bash
# Regenerate the Inspect AI corpus (see ../README.md). Offline apart from `pip install`.
# Usage (from corpus/third_party/inspect/):
#   make/make_corpus.sh                   inspect-ai 0.3.285, files here
#   VERSION=0.3.130 make/make_corpus.sh   an older release, files in ./0.3.130/
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MAIN_VERSION=0.3.285
VERSION="${VERSION:-$MAIN_VERSION}"
VENV="${VENV:-/tmp/venv-inspect-$VERSION}"
RUN="/tmp/tracekit-inspect-run-$VERSION"
if [ "$VERSION" = "$MAIN_VERSION" ]; then
  OUT="$(dirname "$HERE")"; META="$OUT/make"
else
  OUT="$(dirname "$HERE")/$VERSION"; META="$OUT"
fi
mkdir -p "$OUT"

if [ ! -x "$VENV/bin/inspect" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "inspect-ai==$VERSION"
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 INSPECT_DISPLAY=plain NO_COLOR=1
rm -rf "$RUN" && mkdir -p "$RUN"
cp "$HERE"/scenarios.py "$HERE"/tracekit_corpus.py "$RUN"/
cd "$RUN"
for task in tracekit_corpus tracekit_corpus_epochs; do
  for fmt in eval json; do
    "$VENV/bin/inspect" eval "tracekit_corpus.py@$task" --log-format "$fmt" \
      --log-dir "$RUN/$task-$fmt" --display plain --no-fail-on-error > "$RUN/$task-$fmt.out" 2>&1
    cp "$RUN/$task-$fmt"/*."$fmt" "$OUT/$task.$fmt"
    python3 "$HERE/expected.py" "$OUT/$task.$fmt.expected.json" "$task" "$fmt" "$VERSION"
  done
  # the .eval of the same run converted to .json by Inspect itself
  "$VENV/bin/inspect" log convert "$RUN/$task-eval" --to json --output-dir "$RUN/$task-converted" \
    > "$RUN/$task-convert.out" 2>&1
  cp "$RUN/$task-converted"/*.json "$OUT/$task.converted.json"
  python3 "$HERE/expected.py" "$OUT/$task.converted.json.expected.json" "$task" json "$VERSION"
done
"$VENV/bin/pip" freeze > "$META/pip-freeze.txt"
"$VENV/bin/python" --version > "$META/python-version.txt"
echo "wrote $(ls "$OUT" | wc -l) entries in $OUT"
