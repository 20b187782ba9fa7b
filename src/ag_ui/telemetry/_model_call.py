"""A model call's ``chat {model}`` span and a backend tool's ``execute_tool {name}`` span.

Both are children of the current span (the run's, while its agent runs). Message content
(``gen_ai.input.messages``, ``gen_ai.output.messages``, tool arguments and results) is recorded
only with ``instrument(capture_content=True)``: prompts and answers are often personal data.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Optional

from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ag_ui.core.token_usage import TokenUsage
from ag_ui.telemetry._instruments import Instruments

__all__ = ["ModelCall", "ToolExecution", "messages_json", "tool_execution"]


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(getattr(part, "text", "") or "") for part in content)
    return "" if content is None else str(content)


def messages_json(messages: Sequence[Any]) -> str:
    """AG-UI messages in the GenAI conventions' message shape (role, parts), as JSON."""
    shaped: list[dict[str, Any]] = []
    for message in messages:
        role = str(getattr(message, "role", ""))
        parts: list[dict[str, Any]] = []
        if role == "tool":
            parts.append(
                {
                    "type": "tool_call_response",
                    "id": getattr(message, "tool_call_id", None),
                    "response": _text(getattr(message, "content", None)),
                }
            )
        else:
            text = _text(getattr(message, "content", None))
            if text:
                parts.append({"type": "text", "content": text})
            for call in getattr(message, "tool_calls", None) or ():
                parts.append(
                    {
                        "type": "tool_call",
                        "id": call.id,
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    }
                )
        shaped.append({"role": role, "parts": parts})
    return json.dumps(shaped, ensure_ascii=False)


class ModelCall:
    """One streamed model request: ``start``, ``first_output`` when the first event comes,
    then ``finish`` or ``fail``."""

    def __init__(
        self,
        instruments: Instruments,
        *,
        provider: str,
        model: str,
        system: Optional[str],
        messages: Sequence[Any],
    ) -> None:
        self._instruments = instruments
        self._attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": model,
        }
        self.span: Span = instruments.tracer.start_span(
            f"chat {model}", kind=SpanKind.CLIENT, attributes=self._attributes
        )
        if instruments.capture_content:
            if system:
                self.span.set_attribute(
                    "gen_ai.system_instructions",
                    json.dumps([{"type": "text", "content": system}], ensure_ascii=False),
                )
            self.span.set_attribute("gen_ai.input.messages", messages_json(messages))
        self._started = time.perf_counter()
        self._first: Optional[float] = None

    def first_output(self) -> None:
        """The stream produced its first event (time to first token)."""
        if self._first is None:
            self._first = time.perf_counter()
            self._instruments.time_to_first_token.record(
                self._first - self._started, self._attributes
            )

    def finish(
        self,
        *,
        stop_reason: Optional[str],
        usage: Optional[TokenUsage],
        output: Sequence[Any],
    ) -> None:
        ended = time.perf_counter()
        span = self.span
        if stop_reason is not None:
            span.set_attribute("gen_ai.response.finish_reasons", [stop_reason])
        if usage is not None:
            if usage.model:
                span.set_attribute("gen_ai.response.model", usage.model)
            for kind, count in (("input", usage.input_tokens), ("output", usage.output_tokens)):
                if count is not None:
                    span.set_attribute(f"gen_ai.usage.{kind}_tokens", count)
                    self._instruments.token_usage.record(
                        count, {**self._attributes, "gen_ai.token.type": kind}
                    )
            outputs = usage.output_tokens or 0
            if self._first is not None and outputs > 1:
                self._instruments.time_per_output_token.record(
                    (ended - self._first) / (outputs - 1), self._attributes
                )
        if self._instruments.capture_content:
            span.set_attribute("gen_ai.output.messages", messages_json(output))
        self._instruments.model_duration.record(ended - self._started, self._attributes)
        span.end()

    def fail(self, code: str, message: str) -> None:
        self.span.set_attribute("error.type", code)
        self.span.set_status(Status(StatusCode.ERROR, message))
        self._instruments.model_duration.record(
            time.perf_counter() - self._started, {**self._attributes, "error.type": code}
        )
        self.span.end()


class ToolExecution:
    """A backend tool's ``execute_tool {name}`` span; ``done`` records its result."""

    def __init__(self, instruments: Instruments, span: Span) -> None:
        self._instruments = instruments
        self.span = span

    def done(self, content: str, error: Optional[str]) -> None:
        if self._instruments.capture_content:
            self.span.set_attribute("gen_ai.tool.call.result", content)
        if error is not None:
            self.span.set_attribute("error.type", "tool_error")
            self.span.set_status(Status(StatusCode.ERROR, error))


@contextmanager
def tool_execution(
    instruments: Instruments, name: str, call_id: str, arguments: str
) -> Iterator[ToolExecution]:
    """The ``execute_tool`` span, current while the tool runs (a tool's own spans nest)."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
    }
    if instruments.capture_content:
        attributes["gen_ai.tool.call.arguments"] = arguments
    with instruments.tracer.start_as_current_span(
        f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes
    ) as span:
        yield ToolExecution(instruments, span)
