"""``--otel`` of the commands that serve (``agui serve``, ``agui demo``): telemetry exported
over OTLP/HTTP (endpoint and headers from the standard ``OTEL_*`` variables) or printed."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any, Optional

__all__ = ["add_otel_arguments", "exporting"]


def add_otel_arguments(parser: Any) -> None:
    parser.add_argument(
        "--otel",
        nargs="?",
        const="otlp",
        default=None,
        choices=("otlp", "console"),
        help="export OpenTelemetry traces and metrics: otlp (default; OTLP/HTTP to "
        "OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318) or console (spans printed "
        "as they end); docs/telemetry.md",
    )
    parser.add_argument(
        "--otel-content",
        action="store_true",
        help="with --otel: put prompts, answers and tool arguments on the spans (off: they "
        "often hold personal data)",
    )


@contextlib.contextmanager
def exporting(args: argparse.Namespace) -> Iterator[Optional[str]]:
    """Telemetry set up for the block when ``--otel`` was given (``None`` otherwise); flushed
    when it ends. Raises ``ImportError`` (the install line) without the ``otel-export`` extra."""
    target: Optional[str] = getattr(args, "otel", None)
    if target is None:
        yield None
        return
    from ag_ui.telemetry import configure_export, uninstrument

    shutdown = configure_export(target, capture_content=bool(getattr(args, "otel_content", False)))
    try:
        yield target
    finally:
        uninstrument()
        shutdown()
