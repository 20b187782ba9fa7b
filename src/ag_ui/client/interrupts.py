"""Kept importable: ``ag_ui.client.interrupts`` became ``ag_ui.client._interrupts``.

Import these names from ``ag_ui.client``, the client's one public surface.
"""

from ag_ui.client._interrupts import (
    build_resume_array,
    check_resume_covers,
    get_run_outcome,
    interrupts_of,
    is_interrupt_expired,
)

__all__ = [
    "build_resume_array",
    "check_resume_covers",
    "get_run_outcome",
    "interrupts_of",
    "is_interrupt_expired",
]
