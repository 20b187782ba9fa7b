"""Turning telemetry on and off for the whole process.

A global switch rather than an ``AgentEndpoint`` option: the same switch covers the server's
run spans, the providers' model calls and the tools' spans, which no endpoint owns, and it is
how OpenTelemetry instrumentations are usually turned on (once, at start, where the SDK is
configured).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ag_ui.telemetry import _switch

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import TracerProvider

__all__ = ["instrument", "is_instrumented", "uninstrument"]


def instrument(
    *,
    tracer_provider: Optional[TracerProvider] = None,
    meter_provider: Optional[MeterProvider] = None,
    capture_content: bool = False,
) -> None:
    """Record spans and metrics for every run, model call and backend tool from now on.

    ``tracer_provider`` / ``meter_provider``: default, the global ones (whatever the
    application's SDK set up; without an SDK, OpenTelemetry's no-op ones). ``capture_content``
    (default off): put prompts, answers, tool arguments and results on the spans.

    Raises ``ImportError`` with the install line when ``opentelemetry-api`` is missing.
    """
    try:
        from ag_ui.telemetry._telemetry import Telemetry
    except ImportError as exc:
        if exc.name is None or not exc.name.startswith("opentelemetry"):
            raise
        raise ImportError(
            "ag_ui.telemetry needs the OpenTelemetry API: pip install 'ag-ui-sdk[otel]'"
        ) from None
    _switch.current = Telemetry(tracer_provider, meter_provider, capture_content=capture_content)


def uninstrument() -> None:
    """Stop recording (runs already going finish their spans)."""
    _switch.current = None


def is_instrumented() -> bool:
    """Whether ``instrument()`` is in force."""
    return _switch.current is not None
