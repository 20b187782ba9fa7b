"""An OpenTelemetry SDK set up for the ``agui`` commands (``--otel``): OTLP/HTTP or console.

The OTLP exporters read the standard variables themselves (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``...), and the resource
reads ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES``; ``agui`` is the service name when
none is set. Needs the ``otel-export`` extra.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ag_ui.telemetry._api import instrument

__all__ = ["EXPORT_TARGETS", "configure_export"]

EXPORT_TARGETS = ("otlp", "console")


def configure_export(target: str = "otlp", *, capture_content: bool = False) -> Callable[[], None]:
    """Set up tracing and metrics exporting to ``target`` (``"otlp"``: OTLP/HTTP protobuf to
    the endpoint the ``OTEL_*`` variables name, default ``http://localhost:4318``;
    ``"console"``: each span printed as JSON to stdout when it ends), make them the global
    providers and ``instrument()``. Returns the shutdown function (flushes what is queued)."""
    if target not in EXPORT_TARGETS:
        raise ValueError(f"unknown telemetry export {target!r}: choose otlp or console")
    try:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import (
            ConsoleMetricExporter,
            MetricExporter,
            PeriodicExportingMetricReader,
        )
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )
    except ImportError:
        raise ImportError(
            "exporting telemetry needs the OpenTelemetry SDK: pip install 'ag-ui-sdk[otel-export]'"
        ) from None
    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "agui"}
    resource = Resource.create(attributes)
    processor: SpanProcessor
    metric_exporter: MetricExporter
    if target == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise ImportError(
                "exporting OTLP needs opentelemetry-exporter-otlp-proto-http: "
                "pip install 'ag-ui-sdk[otel-export]'"
            ) from None
        processor = BatchSpanProcessor(OTLPSpanExporter())
        metric_exporter = OTLPMetricExporter()
    else:
        processor = SimpleSpanProcessor(ConsoleSpanExporter())
        metric_exporter = ConsoleMetricExporter()
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(processor)
    reader = PeriodicExportingMetricReader(metric_exporter)
    meter_provider = MeterProvider(resource=resource, metric_readers=[reader])
    trace.set_tracer_provider(tracer_provider)
    metrics.set_meter_provider(meter_provider)
    instrument(
        tracer_provider=tracer_provider,
        meter_provider=meter_provider,
        capture_content=capture_content,
    )

    def shutdown() -> None:
        tracer_provider.shutdown()
        meter_provider.shutdown()

    return shutdown
