"""Whether telemetry is on: one module attribute, the only thing a hot path reads.

``current`` is ``None`` until ``ag_ui.telemetry.instrument()`` puts a ``Telemetry`` in it.
Every instrumented place (a run's sink, a model call, a tool) reads ``_switch.current`` once
and does nothing more when it is ``None``: with telemetry off, or OpenTelemetry not installed,
no OpenTelemetry module is imported and no span object is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # the real type imports opentelemetry; at run time nothing here does
    from ag_ui.telemetry._telemetry import Telemetry

__all__ = ["current"]

current: Optional[Telemetry] = None
"""The instruments in use, or ``None``: telemetry is off."""
