#!/usr/bin/env bash
# Regenerate the Inspect AI corpus (see ../README.md). Offline apart from `pip install`.
# Usage: make/make_corpus.sh   (from corpus/third_party/inspect/)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(dirname "$HERE")"
VENV="${VENV:-/tmp/venv-inspect}"
VERSION=0.3.285
RUN=/tmp/tracekit-inspect-run

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
"$VENV/bin/pip" freeze > "$OUT/make/pip-freeze.txt"
"$VENV/bin/python" --version > "$OUT/make/python-version.txt"
echo "wrote $(ls "$OUT" | wc -l) entries in $OUT"
