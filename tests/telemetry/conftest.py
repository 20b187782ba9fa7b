"""The real OpenTelemetry SDK with in-memory readers, instrumented for one test at a time."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Optional

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from ag_ui import telemetry


@dataclass
class Otel:
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader
    tracer_provider: TracerProvider

    def finished(self) -> list[ReadableSpan]:
        return sorted(self.spans.get_finished_spans(), key=lambda span: span.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.finished() if span.name == name]

    def tree(self) -> list[Any]:
        """The finished spans as nested ``(name, [children])``, children in start order."""
        spans = self.finished()
        ids = {span.context.span_id for span in spans if span.context is not None}

        def children(parent: Optional[int]) -> list[Any]:
            return [
                (span.name, children(span.context.span_id if span.context else None))
                for span in spans
                if (span.parent.span_id if span.parent and span.parent.span_id in ids else None)
                == parent
            ]

        return children(None)

    def points(self, name: str) -> list[Any]:
        """The data points of metric ``name`` (the reader collects on each call)."""
        data = self.metrics.get_metrics_data()
        found: list[Any] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        found.extend(metric.data.data_points)
        return found


@pytest.fixture
def otel() -> Iterator[Otel]:
    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    telemetry.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    try:
        yield Otel(spans, reader, tracer_provider)
    finally:
        telemetry.uninstrument()
        tracer_provider.shutdown()
        meter_provider.shutdown()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
