#!/usr/bin/env bash
# Regenerate the OpenTelemetry GenAI corpus (see ../README.md). Offline apart from `pip install`.
# Usage: make/make_corpus.sh   (from corpus/third_party/otel/)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$(dirname "$HERE")"
VENV="${VENV:-/tmp/venv-otel}"
RUN=/tmp/tracekit-otel-run
LIMIT=64

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  # --pre: util-genai < 1.0 only exists as beta releases; pins from real-tool-corpus.md
  "$VENV/bin/pip" install -q --pre opentelemetry-sdk==1.45.2 \
    opentelemetry-exporter-otlp-json-file==0.66b1 \
    opentelemetry-instrumentation-openai-v2==2.4b0 opentelemetry-util-genai==0.4b0 'openai==2.54.0'
fi
rm -rf "$RUN" && mkdir -p "$RUN"
cp "$HERE"/*.py "$RUN"/
cd "$RUN"
VERSIONS=$("$VENV/bin/python" -c '
import json, importlib.metadata as m, platform
print(json.dumps({p: m.version(p) for p in ["opentelemetry-sdk", "opentelemetry-exporter-otlp-json-file",
  "opentelemetry-instrumentation-openai-v2", "opentelemetry-util-genai", "openai"]} | {"python": platform.python_version()}))')
export OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental

run() {  # name content(0|1) limit(0 = none)
  local name=$1 content=$2 limit=$3
  (
    if [ "$content" = 1 ]; then export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY
    else export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=NO_CONTENT; fi
    if [ "$limit" != 0 ]; then export OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT=$limit; fi
    timeout 120 "$VENV/bin/python" agent.py "$RUN/$name.otlp.jsonl"
  )
  cp "$RUN/$name.otlp.jsonl" "$OUT/$name.otlp.jsonl"
  python3 "$HERE/expected.py" "$OUT/$name.otlp.jsonl.expected.json" "$name" "$content" "$limit" "$VERSIONS"
}
run genai_content 1 0
run genai_no_content 0 0
run genai_length_limit 1 "$LIMIT"

# the older convention still in circulation: no stability opt-in, content "true"; the
# openai-v2 chat content goes to log records (gen_ai.*.message / gen_ai.choice events)
(
  unset OTEL_SEMCONV_STABILITY_OPT_IN
  export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
  timeout 120 "$VENV/bin/python" agent.py "$RUN/genai_legacy_events.otlp.jsonl" \
    "$RUN/genai_legacy_events.logs.otlp.jsonl"
)
cp "$RUN/genai_legacy_events.otlp.jsonl" "$RUN/genai_legacy_events.logs.otlp.jsonl" "$OUT/"
python3 "$HERE/expected.py" "$OUT/genai_legacy_events.otlp.jsonl.expected.json" \
  genai_legacy_events 1 0 "$VERSIONS" legacy

"$VENV/bin/pip" freeze > "$OUT/make/pip-freeze.txt"
"$VENV/bin/python" --version > "$OUT/make/python-version.txt"
echo "wrote $(ls "$OUT" | wc -l) entries in $OUT"
