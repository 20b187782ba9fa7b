"""Values of a newer protocol inside a known event: kept, warned about, skipped where used.

The TypeScript client (``@ag-ui/client`` 1.0.0) accepts a stream whose open unions hold a
member it does not know (an outcome ``type`` such as ``"failed"``, a JSON Patch ``op`` such as
``"merge"``): it drops the member with a warning and goes on. This SDK keeps the value (the
event still holds it, as ``UnknownOutcome`` or as the operation's dict), warns with
``ForwardCompatibilityWarning``, and the reducer skips what it cannot apply: an unknown outcome
counts as none (success, as for TypeScript once it dropped it), an unknown operation is left
out of its patch and the rest applies.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

__all__ = ["KNOWN_PATCH_OPS", "ForwardCompatibilityWarning", "known_operations", "warn_unknown"]

KNOWN_PATCH_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})


class ForwardCompatibilityWarning(UserWarning):
    """A known event held a member of an open union this SDK does not know (from a newer
    protocol); the value was kept and skipped where it would be used."""


def warn_unknown(text: str) -> None:
    warnings.warn(f"{text} (from a newer protocol version?)", ForwardCompatibilityWarning, 3)


def known_operations(operations: Sequence[Any], event_type: str) -> Sequence[Any]:
    """``operations`` without those whose ``op`` is not RFC 6902's (warned about once per
    patch); the same sequence when all are known (the common case costs one pass)."""
    for operation in operations:
        if operation.get("op") not in KNOWN_PATCH_OPS:
            break
    else:
        return operations
    kept = [op for op in operations if op.get("op") in KNOWN_PATCH_OPS]
    unknown = sorted(
        {str(op.get("op")) for op in operations if op.get("op") not in KNOWN_PATCH_OPS}
    )
    # The paths name the operations as @ag-ui/client's "removed unrecognised material" does.
    field = "patch" if event_type == "ACTIVITY_DELTA" else "delta"
    paths = [
        f"/{field}/{index}"
        for index, op in enumerate(operations)
        if op.get("op") not in KNOWN_PATCH_OPS
    ]
    warn_unknown(
        f"{event_type}: skipped {len(operations) - len(kept)} JSON Patch operation(s) of unknown "
        f"op {', '.join(repr(name) for name in unknown)}; the rest of the patch applies "
        f"(removed {', '.join(paths)})"
    )
    return kept
