"""Run the GenAI security-guardian prototype of open-telemetry/semantic-conventions and keep the
spans the OpenTelemetry Python SDK makes of it (docs/formats.md, "OpenTelemetry GenAI").

The prototype (``prototype/genai_guardrail_instrumentation_prototype.py`` with ``demo_chat.py``
and ``demo_tools.py``, commit in ../SOURCES) is not copied here: extract it to a folder and pass
that folder. It prints every span with the SDK's ``ConsoleSpanExporter``; this script gives that
exporter a formatter that keeps each span's ``ReadableSpan.to_json()`` text as the SDK writes it,
and writes them as one ``{"spans": [...]}`` document (the SDK span list tracekit reads).

    git -C <gitdir> show <commit>:prototype/<file> > /tmp/guard-proto/<file>   # the three files
    env -u OPENAI_API_KEY DEMO_LLM_MODE=mock /tmp/otel-venv/bin/python make/run_prototype.py \\
        /tmp/guard-proto apply_guardrail.sdk.json
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from opentelemetry.sdk.trace.export import ConsoleSpanExporter

SPANS: list[str] = []


class _Keep(ConsoleSpanExporter):
    """The SDK's console exporter, keeping each span's ``to_json()`` instead of printing it."""

    def __init__(self) -> None:
        super().__init__(out=io.StringIO(), formatter=self._keep)

    @staticmethod
    def _keep(span) -> str:  # noqa: ANN001 - an SDK ReadableSpan
        SPANS.append(span.to_json())
        return ""


def main() -> None:
    folder, out = Path(sys.argv[1]), Path(sys.argv[2])
    sys.path.insert(0, str(folder))
    import opentelemetry.sdk.trace.export as export

    export.ConsoleSpanExporter = _Keep  # type: ignore[misc] - before the prototype imports it
    with contextlib.redirect_stdout(io.StringIO()):
        import genai_guardrail_instrumentation_prototype as prototype

        prototype.main()
    out.write_text('{"spans": [\n' + ",\n".join(SPANS) + "\n]}\n", encoding="utf-8")
    print(f"{len(SPANS)} spans written to {out}")


if __name__ == "__main__":
    main()
