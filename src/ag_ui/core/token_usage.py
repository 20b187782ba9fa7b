"""``TokenUsage`` and helpers to build and aggregate it (PROTOCOL.md §2.7).

Counts are integers in 0..2^53-1. ``input_tokens``/``output_tokens`` are totals;
``reasoning_tokens`` is part of output, ``cached_input_tokens`` and ``cache_write_input_tokens``
are parts of input. Nothing identifying or content-bearing belongs here.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Optional

from pydantic import Field

from ag_ui.core._base import AGUIModel
from ag_ui.core._wire import MAX_SAFE_INTEGER

__all__ = ["TokenUsage", "aggregate_token_usage", "token_usage_from_langchain_metadata"]

_Count = Annotated[int, Field(ge=0, le=MAX_SAFE_INTEGER)]
_COUNT_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
    "cache_write_input_tokens",
)


class TokenUsage(AGUIModel):
    """Token accounting for one (provider, model) pair within a run."""

    provider: Optional[str] = None
    model: Optional[str] = None
    input_tokens: Optional[_Count] = None
    output_tokens: Optional[_Count] = None
    total_tokens: Optional[_Count] = None
    reasoning_tokens: Optional[_Count] = None
    cached_input_tokens: Optional[_Count] = None
    cache_write_input_tokens: Optional[_Count] = None


def _count(value: Any) -> Optional[int]:
    # bool is an int subclass; a count of True is a bug upstream, not a number.
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_SAFE_INTEGER else None


def token_usage_from_langchain_metadata(
    usage_metadata: Optional[Mapping[str, Any]],
    *,
    provider: Optional[str] = None,
    model: Optional[str] = None,
) -> Optional[TokenUsage]:
    """Map LangChain's ``usage_metadata`` to a ``TokenUsage``; ``None`` when it has no counts.

    >>> token_usage_from_langchain_metadata({"input_tokens": 3, "output_tokens": 4}).total_tokens
    """
    if not usage_metadata:
        return None
    input_details = usage_metadata.get("input_token_details") or {}
    output_details = usage_metadata.get("output_token_details") or {}
    counts = {
        "input_tokens": _count(usage_metadata.get("input_tokens")),
        "output_tokens": _count(usage_metadata.get("output_tokens")),
        "total_tokens": _count(usage_metadata.get("total_tokens")),
        "reasoning_tokens": _count(output_details.get("reasoning")),
        "cached_input_tokens": _count(input_details.get("cache_read")),
        "cache_write_input_tokens": _count(input_details.get("cache_creation")),
    }
    present = {key: value for key, value in counts.items() if value is not None}
    if not present:
        return None
    return TokenUsage(provider=provider, model=model, **present)


def aggregate_token_usage(entries: Iterable[TokenUsage]) -> list[TokenUsage]:
    """Sum usage per (provider, model), in order of first appearance.

    A count that no entry of a group reported stays unset rather than becoming zero.
    """
    groups: dict[tuple[Optional[str], Optional[str]], dict[str, Optional[int]]] = {}
    for entry in entries:
        totals = groups.setdefault((entry.provider, entry.model), dict.fromkeys(_COUNT_FIELDS))
        for name in _COUNT_FIELDS:
            value = getattr(entry, name)
            if value is not None:
                totals[name] = (totals[name] or 0) + value
    return [
        TokenUsage(
            provider=provider,
            model=model,
            **{key: value for key, value in totals.items() if value is not None},
        )
        for (provider, model), totals in groups.items()
    ]
