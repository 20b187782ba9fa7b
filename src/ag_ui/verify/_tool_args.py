"""Tool-call arguments that are not JSON, or missing: the checks shared by every consumer.

The concatenated ``TOOL_CALL_ARGS`` deltas of one call should be one JSON document. When they
are not (ag-ui-langgraph 0.0.47 drops the arguments of the first chunk), the stream is still
legal, as the TypeScript client reads it; but a tool run from ``on_tool_call_end`` gets ``{}``,
so the client and ``agui verify`` warn (``ToolArgumentsWarning``) and the test kit's grader
reports the rule ``tool.args-json``, all with this message.

A call closed with no arguments at all (no ``TOOL_CALL_ARGS``, or only ``{}``) to a tool whose
declared schema requires some is legal too, and just as useless: ag-ui-langgraph 0.0.47 sends
whole arguments that arrive in one chunk this way (ag-ui #2463). When the verifier knows the
run's tools (``RUN_STARTED.input``, or ``tools=``), it says so, as rule ``tool.args-missing``.
Each problem is a ``ToolArgumentsProblem``: the message (a ``str``) with its ``rule``.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping
from typing import Any, Optional

from ag_ui.core._surrogates import refuse_constant

__all__ = [
    "ToolArgumentsProblem",
    "ToolArgumentsWarning",
    "missing_arguments_problem",
    "tool_arguments_problem",
    "warn_tool_arguments",
]

ARGS_JSON_RULE = "tool.args-json"
ARGS_MISSING_RULE = "tool.args-missing"


class ToolArgumentsProblem(str):
    """A problem with a call's arguments: the message, and ``rule`` (``tool.args-json`` or
    ``tool.args-missing``) for consumers that report rule ids (the test kit's grader)."""

    rule: str = ARGS_JSON_RULE

    def __new__(cls, message: str, rule: str = ARGS_JSON_RULE) -> ToolArgumentsProblem:
        problem = super().__new__(cls, message)
        problem.rule = rule
        return problem


class ToolArgumentsWarning(UserWarning):
    """A tool call's concatenated ``TOOL_CALL_ARGS`` are not valid JSON (rule
    ``tool.args-json``), or are missing where the tool requires some (``tool.args-missing``);
    the stream goes on, the call's parsed arguments are ``{}``."""


def tool_arguments_problem(
    tool_call_id: str, arguments: str, pieces: int
) -> Optional[ToolArgumentsProblem]:
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
        return ToolArgumentsProblem(
            f"the arguments of tool call {tool_call_id!r} ({pieces} TOOL_CALL_ARGS) are not "
            f"JSON{where}: {shown!r}"
        )
    return None


def _empty(arguments: str) -> bool:
    if not arguments.strip():
        return True
    try:
        return bool(json.loads(arguments) == {})
    except ValueError:
        return False  # not JSON at all: tool.args-json's to say


def missing_arguments_problem(
    tool_call_id: str, tool_name: str, arguments: str, parameters: Any
) -> Optional[ToolArgumentsProblem]:
    """Why a call closed with no arguments (``""`` or ``{}``) should have had some: its tool's
    JSON Schema ``parameters`` require properties. None when it has arguments, or the schema
    requires nothing."""
    if not isinstance(parameters, Mapping) or not _empty(arguments):
        return None
    required = parameters.get("required")
    if not isinstance(required, list) or not required:
        return None
    names = ", ".join(repr(name) for name in required if isinstance(name, str))
    sent = "no TOOL_CALL_ARGS" if not arguments else f"only {arguments.strip()!r}"
    return ToolArgumentsProblem(
        f"tool call {tool_call_id!r} to {tool_name!r} ended with {sent}, but the tool's schema "
        f"requires {names}: the producer dropped the arguments (ag-ui-langgraph 0.0.47 does "
        "when they arrive whole in one chunk)",
        ARGS_MISSING_RULE,
    )


def warn_tool_arguments(problem: str) -> None:
    """The default ``on_tool_arguments``: a ``ToolArgumentsWarning``."""
    warnings.warn(problem, ToolArgumentsWarning, stacklevel=2)
