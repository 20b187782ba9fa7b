"""Provider token counts as AG-UI ``TokenUsage`` (PROTOCOL.md §2.7).

AG-UI's ``inputTokens`` is the whole input, with the cached parts inside it; APIs that count
cache reads and writes apart from ``input_tokens`` (Anthropic) add them in before calling this.
"""

from __future__ import annotations

from typing import Any, Optional

from ag_ui.core._wire import MAX_SAFE_INTEGER
from ag_ui.core.token_usage import TokenUsage

__all__ = ["usage_counts"]


def _count(value: Any) -> Optional[int]:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SAFE_INTEGER:
        return None
    return value


def usage_counts(provider: str, model: Optional[str], **counts: Any) -> Optional[TokenUsage]:
    """A ``TokenUsage`` holding the counts that are integers (``None`` when none is)."""
    present = {key: value for key, raw in counts.items() if (value := _count(raw)) is not None}
    if not present:
        return None
    if "total_tokens" not in present and {"input_tokens", "output_tokens"} <= present.keys():
        present["total_tokens"] = present["input_tokens"] + present["output_tokens"]
    return TokenUsage(provider=provider, model=model, **present)
