"""A small tool-using agent instrumented with OpenTelemetry GenAI, one trace per scenario.

Usage (the venv with the OTel packages): python agent.py OUT.jsonl [LOGS_OUT.jsonl]
With LOGS_OUT, log records (the pre-opt-in content events, gen_ai.*.message / gen_ai.choice)
go to a second OTLP/JSON lines file through FileLogExporter.
The environment decides what is captured (see make_corpus.sh):
OTEL_SEMCONV_STABILITY_OPT_IN, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT.

- chat spans: opentelemetry-instrumentation-openai-v2 around the real `openai` client,
  which talks to fake_server.py on 127.0.0.1;
- invoke_agent and execute_tool spans: util-genai's TelemetryHandler. util-genai does not
  put tool arguments/results on the span itself, so this loop adds
  gen_ai.tool.call.arguments / gen_ai.tool.call.result as invocation attributes, only when
  the handler says content is captured;
- export: FileSpanExporter (opentelemetry-exporter-otlp-json-file), one
  ExportTraceServiceRequest per line; one BatchSpanProcessor flush per scenario.
"""

import json
import sys
from typing import Any

import fake_server
import openai
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.util.genai.handler import TelemetryHandler
from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text
from scenarios import (
    AGENT_NAME,
    MODEL,
    SCENARIOS,
    SYSTEM_PROMPT,
    TOOL_DESCRIPTIONS,
    TOOL_ERRORS,
    TOOL_SCHEMAS,
    tool_result,
)


class ToolError(Exception):
    """A tool failure the model is told about."""


def run_tool(function: str, arguments: dict[str, Any]) -> str:
    if function in TOOL_ERRORS:
        raise ToolError(TOOL_ERRORS[function][1])
    return tool_result(function, arguments)


def run_scenario(client: openai.OpenAI, handler: TelemetryHandler, name: str) -> None:
    spec = SCENARIOS[name]
    capture = handler.should_capture_content()
    agent = handler.start_invoke_local_agent("openai", request_model=MODEL)
    agent.agent_name = AGENT_NAME
    agent.conversation_id = name
    if capture:
        agent.system_instruction = [Text(content=SYSTEM_PROMPT)]
        agent.input_messages = [InputMessage(role="user", parts=[Text(content=spec["prompt"])])]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": spec["prompt"]},
    ]
    try:
        for _ in range(len(spec["steps"])):
            response = client.chat.completions.create(
                model=MODEL, messages=messages, tools=TOOL_SCHEMAS  # type: ignore[arg-type]
            )
            message = response.choices[0].message
            if not message.tool_calls:
                if capture:
                    agent.output_messages = [OutputMessage(
                        role="assistant", parts=[Text(content=message.content or "")],
                        finish_reason=response.choices[0].finish_reason)]
                agent.finish_reasons = [response.choices[0].finish_reason]
                break
            messages.append(message.model_dump(exclude_none=True))
            # the calls of one turn run one after the other, each in its own span
            for call in message.tool_calls:
                function = call.function.name
                tool = handler.start_tool(
                    function, arguments=call.function.arguments, tool_call_id=call.id,
                    tool_type="function", tool_description=TOOL_DESCRIPTIONS[function])
                if capture:
                    tool.attributes["gen_ai.tool.call.arguments"] = call.function.arguments
                try:
                    result = run_tool(function, json.loads(call.function.arguments))
                except ToolError as exc:
                    tool.fail(exc)
                    content = f"Error: {exc}"
                else:
                    tool.tool_result = result
                    if capture:
                        tool.attributes["gen_ai.tool.call.result"] = result
                    tool.stop()
                    content = result
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    except openai.APIError as exc:
        agent.fail(exc)
        return
    agent.stop()


def main() -> None:
    out = sys.argv[1]
    resource = Resource.create(
        {"service.name": "tracekit-corpus-agent", "service.version": "1.0.0"})
    provider = TracerProvider(resource=resource)
    processor = BatchSpanProcessor(FileSpanExporter(out))
    provider.add_span_processor(processor)
    logger_provider: LoggerProvider | None = None
    log_processor: BatchLogRecordProcessor | None = None
    if len(sys.argv) > 2:
        logger_provider = LoggerProvider(resource=resource)
        log_processor = BatchLogRecordProcessor(FileLogExporter(sys.argv[2]))
        logger_provider.add_log_record_processor(log_processor)
    OpenAIInstrumentor().instrument(tracer_provider=provider, logger_provider=logger_provider)
    handler = TelemetryHandler(tracer_provider=provider, logger_provider=logger_provider)
    server = fake_server.start()
    try:
        client = openai.OpenAI(
            base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
            api_key="sk-fake-not-a-key", max_retries=0, timeout=30)
        for name in SCENARIOS:
            run_scenario(client, handler, name)
            processor.force_flush()
            if log_processor is not None:
                log_processor.force_flush()
    finally:
        server.shutdown()
        provider.shutdown()
        if logger_provider is not None:
            logger_provider.shutdown()


if __name__ == "__main__":
    main()
