"""``Telemetry``: what ``instrument()`` puts in ``_switch.current``, the one object the
instrumented places call (the server, the providers, the store writer)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Optional

from opentelemetry import metrics, trace
from opentelemetry.trace import Span

from ag_ui.telemetry._instruments import Instruments
from ag_ui.telemetry._model_call import ModelCall, ToolExecution, tool_execution
from ag_ui.telemetry._propagation import span_of_key
from ag_ui.telemetry._run import RunTelemetry, reader_span

__all__ = ["Telemetry"]


class Telemetry:
    """The instruments in use and the spans made from them."""

    def __init__(
        self,
        tracer_provider: Optional[trace.TracerProvider] = None,
        meter_provider: Optional[metrics.MeterProvider] = None,
        *,
        capture_content: bool = False,
    ) -> None:
        self.instruments = Instruments(
            tracer_provider, meter_provider, capture_content=capture_content
        )

    def start_run(
        self,
        *,
        agent_name: str,
        thread_id: str,
        run_id: str,
        headers: Optional[Mapping[str, str]],
        detached: bool = False,
    ) -> RunTelemetry:
        return RunTelemetry(
            self.instruments,
            agent_name=agent_name,
            thread_id=thread_id,
            run_id=run_id,
            headers=headers,
            detached=detached,
        )

    def reader(self, key: str, headers: Mapping[str, str], attributes: dict[str, Any]) -> Span:
        return reader_span(self.instruments, span_of_key(key), headers, attributes)

    def model_call(
        self, *, provider: str, model: str, system: Optional[str], messages: Sequence[Any]
    ) -> ModelCall:
        return ModelCall(
            self.instruments, provider=provider, model=model, system=system, messages=messages
        )

    def tool(
        self, name: str, call_id: str, arguments: str
    ) -> AbstractContextManager[ToolExecution]:
        return tool_execution(self.instruments, name, call_id, arguments)

    def streams(self, delta: int) -> None:
        self.instruments.active_streams += delta

    def store_call(self, operation: str, seconds: float) -> None:
        self.instruments.store_duration.record(seconds, {"ag_ui.store.operation": operation})
