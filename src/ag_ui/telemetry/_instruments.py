"""The tracer and the metric instruments, made once by ``instrument()``.

Span and attribute names follow the OpenTelemetry GenAI semantic conventions as of
semantic-conventions v1.41.0 (``invoke_agent``, ``chat``, ``execute_tool``;
``gen_ai.provider.name``, ``gen_ai.conversation.id``), whose names the standalone
semantic-conventions-genai v0.1.0 keeps for these three spans. What the conventions do not name
(AG-UI's run id, outcome, steps, streams) is under ``ag_ui.*``.
"""

from __future__ import annotations

from importlib import metadata
from typing import Optional

from opentelemetry import metrics, trace
from opentelemetry.metrics import Observation

__all__ = ["SCHEMA_URL", "Instruments"]

SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.0"

_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
_TOKENS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576)
_COUNTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


class Instruments:
    """One tracer, one meter and every instrument this SDK records into."""

    def __init__(
        self,
        tracer_provider: Optional[trace.TracerProvider],
        meter_provider: Optional[metrics.MeterProvider],
        *,
        capture_content: bool,
    ) -> None:
        self.capture_content = capture_content
        try:
            version = metadata.version("ag-ui-sdk")
        except metadata.PackageNotFoundError:  # run from a source tree
            version = ""
        self.tracer = trace.get_tracer(
            "ag_ui", version, tracer_provider=tracer_provider, schema_url=SCHEMA_URL
        )
        meter = metrics.get_meter(
            "ag_ui", version, meter_provider=meter_provider, schema_url=SCHEMA_URL
        )
        self.run_duration = meter.create_histogram(
            "ag_ui.run.duration",
            unit="s",
            description="How long runs took, by outcome",
            explicit_bucket_boundaries_advisory=_SECONDS,
        )
        self.time_to_first_event = meter.create_histogram(
            "ag_ui.run.time_to_first_event",
            unit="s",
            description="From a run's start to the first event its agent produced",
            explicit_bucket_boundaries_advisory=_SECONDS,
        )
        self.run_events = meter.create_histogram(
            "ag_ui.run.events",
            unit="{event}",
            description="Events a run sent",
            explicit_bucket_boundaries_advisory=_COUNTS,
        )
        # Runs and streams going on: plain counts, observed when the metrics are collected
        # (an SDK ``add`` per start and end cost more than the rest of a short run's metrics).
        self.active_runs = 0
        self.active_streams = 0
        meter.create_observable_up_down_counter(
            "ag_ui.runs.active",
            callbacks=[lambda options: [Observation(self.active_runs)]],
            unit="{run}",
            description="Runs going on",
        )
        meter.create_observable_up_down_counter(
            "ag_ui.streams.active",
            callbacks=[lambda options: [Observation(self.active_streams)]],
            unit="{stream}",
            description="Responses streaming events (runs and reconnects)",
        )
        self.run_errors = meter.create_counter(
            "ag_ui.run.errors", unit="{error}", description="Runs ended by RUN_ERROR, by code"
        )
        self.disconnects = meter.create_counter(
            "ag_ui.client.disconnects",
            unit="{disconnect}",
            description="Clients that left before their response ended",
        )
        self.store_duration = meter.create_histogram(
            "ag_ui.store.duration",
            unit="s",
            description="Run store calls, by operation",
            explicit_bucket_boundaries_advisory=_SECONDS,
        )
        self.model_duration = meter.create_histogram(
            "gen_ai.client.operation.duration",
            unit="s",
            description="Model calls",
            explicit_bucket_boundaries_advisory=_SECONDS,
        )
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage",
            unit="{token}",
            description="Tokens per model call",
            explicit_bucket_boundaries_advisory=_TOKENS,
        )
        self.time_to_first_token = meter.create_histogram(
            "ag_ui.model.time_to_first_token",
            unit="s",
            description="From a model request to the first event its stream produced",
            explicit_bucket_boundaries_advisory=_SECONDS,
        )
        self.time_per_output_token = meter.create_histogram(
            "ag_ui.model.time_per_output_token",
            unit="s",
            description="Streaming time per output token after the first",
            explicit_bucket_boundaries_advisory=(0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5),
        )
