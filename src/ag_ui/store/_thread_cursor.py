"""The opaque listing cursor every thread store uses: the last listed (updated_at, thread_id)."""

from __future__ import annotations

import base64
import json
from typing import Optional

__all__ = ["check_limit", "decode_cursor", "encode_cursor"]


def encode_cursor(updated_at: float, thread_id: str) -> str:
    raw = json.dumps([updated_at, thread_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: Optional[str]) -> Optional[tuple[float, str]]:
    """``None`` for no cursor; ``ValueError`` naming the problem for one this store never made."""
    if cursor is None:
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
        updated_at, thread_id = value
        if not isinstance(updated_at, (int, float)) or not isinstance(thread_id, str):
            raise TypeError
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"cursor {cursor!r} is not a thread listing cursor; pass the next_cursor of a "
            "previous page, or none for the first page"
        ) from exc
    return float(updated_at), thread_id


def check_limit(limit: int, maximum: int) -> None:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= maximum:
        raise ValueError(f"limit must be an integer from 1 to {maximum}, got {limit!r}")
