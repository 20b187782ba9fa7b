"""OpenTelemetry traces and metrics for AG-UI runs (docs/telemetry.md).

``instrument()`` turns them on for the process: every run gets an ``invoke_agent {agent}``
span (children: its steps, its tool calls, its model calls and backend tools), and the run's
metrics are recorded. Off (the default), or without the ``otel`` extra, nothing here imports
OpenTelemetry and the hot paths read one module attribute.
"""

import ag_ui._require_sdk  # noqa: F401  # first: the installed ag_ui must be this SDK's
from ag_ui.telemetry._api import instrument, is_instrumented, uninstrument
from ag_ui.telemetry._export import configure_export
from ag_ui.telemetry._propagation import TRACE_ID_HEADER, inject_current

__all__ = [
    "TRACE_ID_HEADER",
    "configure_export",
    "inject_current",
    "instrument",
    "is_instrumented",
    "uninstrument",
]
