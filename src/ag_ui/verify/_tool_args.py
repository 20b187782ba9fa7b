"""Tool-call arguments that are not JSON: the one check, shared by every consumer.

The concatenated ``TOOL_CALL_ARGS`` deltas of one call should be one JSON document. When they
are not (ag-ui-langgraph 0.0.47 drops the arguments of the first chunk), the stream is still
legal, as the TypeScript client reads it; but a tool run from ``on_tool_call_end`` gets ``{}``,
so the client and ``agui verify`` warn (``ToolArgumentsWarning``) and the test kit's grader
reports the rule ``tool.args-json``, all with this message.
"""

from __future__ import annotations

import json
import warnings
from typing import Optional

from ag_ui.core._surrogates import refuse_constant

__all__ = ["ToolArgumentsWarning", "tool_arguments_problem", "warn_tool_arguments"]


class ToolArgumentsWarning(UserWarning):
    """A tool call's concatenated ``TOOL_CALL_ARGS`` are not valid JSON (rule
    ``tool.args-json``); the stream goes on, the call's parsed arguments are ``{}``."""


def tool_arguments_problem(tool_call_id: str, arguments: str, pieces: int) -> Optional[str]:
    """Why ``arguments`` (``pieces`` deltas joined) are not JSON, or None when they are (or are
    empty: a tool without arguments)."""
    if not arguments:
        return None
    try:
        json.loads(arguments, parse_constant=refuse_constant)  # NaN is not JSON either
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError):
            where = f" ({exc.msg} at character {exc.pos})"
        else:  # NaN or Infinity (refuse_constant says which)
            where = f" ({exc})"
        shown = arguments if len(arguments) <= 120 else arguments[:117] + "..."
        return (
            f"the arguments of tool call {tool_call_id!r} ({pieces} TOOL_CALL_ARGS) are not "
            f"JSON{where}: {shown!r}"
        )
    return None


def warn_tool_arguments(problem: str) -> None:
    """The default ``on_tool_arguments``: a ``ToolArgumentsWarning``."""
    warnings.warn(problem, ToolArgumentsWarning, stacklevel=2)
