"""Client-side (frontend) tools: Python handlers the client runs when the agent calls them.

A tool is an ``ag_ui.tools.FunctionTool`` (the ``tool`` decorator, or a plain function wrapped
here): the same definition a server's ``ModelAgent`` runs as a backend tool. ``ClientTools``
holds them by name, gives their definitions for each run's ``RunAgentInput.tools``, and answers
a run's pending calls with ``ToolMessage``s: the handler's result as the content, or ``error``
set (and the error text as the content) when the handler raised or the arguments did not fit.

``HttpAgent.run_agent`` loops over it: a run that ends with pending calls for registered tools
is answered and continued, up to ``max_tool_rounds`` follow-up runs.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Optional, Union

from ag_ui.core.errors import ToolError
from ag_ui.core.types import Tool, ToolCall, ToolMessage
from ag_ui.tools import FunctionTool, serialize_result

__all__ = ["ClientTools", "ToolHandler", "as_function_tool"]

logger = logging.getLogger("ag_ui.client.tools")

ToolHandler = Union[FunctionTool, Callable[..., Any]]
"""A registered tool: a ``FunctionTool`` (``@tool``), or a sync or async function."""


def as_function_tool(
    handler: ToolHandler,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[Mapping[str, Any]] = None,
) -> FunctionTool:
    """``handler`` as a ``FunctionTool``; a ``FunctionTool`` given with overrides is rewrapped."""
    if isinstance(handler, FunctionTool):
        if name is None and description is None and parameters is None:
            return handler
        return FunctionTool(
            handler.function,
            name=name if name is not None else handler.name,
            description=description if description is not None else handler.description,
            parameters=parameters if parameters is not None else handler.parameters,
            thread=handler.thread,
        )
    return FunctionTool(handler, name=name, description=description, parameters=parameters)


class ClientTools(Mapping[str, FunctionTool]):
    """The tools a client answers itself, by name (a read-only mapping of ``FunctionTool``)."""

    def __init__(self, handlers: Iterable[ToolHandler] = ()) -> None:
        self._tools: dict[str, FunctionTool] = {}
        for handler in handlers:
            self.add(handler)

    def add(self, handler: ToolHandler, **overrides: Any) -> FunctionTool:
        """Register ``handler`` (``name=``, ``description=``, ``parameters=`` override what
        its signature and docstring say); a name already registered is a ``ValueError``."""
        added = as_function_tool(handler, **overrides)
        if added.name in self._tools:
            raise ValueError(
                f"a client tool named {added.name!r} is already registered; "
                "remove_tool() it first or pass name=... to register this one under another name"
            )
        self._tools[added.name] = added
        return added

    def remove(self, name: str) -> None:
        """Unregister ``name`` (a ``KeyError`` names the registered tools when it is unknown)."""
        if name not in self._tools:
            known = ", ".join(sorted(self._tools)) or "none"
            raise KeyError(f"no client tool named {name!r} (registered: {known})")
        del self._tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> FunctionTool:
        return self._tools[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def copy(self) -> ClientTools:
        twin = ClientTools()
        twin._tools = dict(self._tools)
        return twin

    def definitions(self, extra: Sequence[Tool]) -> list[Tool]:
        """What a run offers: the registered tools, then the run's own ``tools=`` definitions
        (answered by the application); one name in both is a ``ValueError``."""
        clashes = sorted({tool.name for tool in extra} & set(self._tools))
        if clashes:
            raise ValueError(
                f"tools= names {', '.join(clashes)}, already registered as client tool(s) with a "
                "handler; leave it out of tools= (its definition is sent anyway)"
            )
        return [tool.definition for tool in self._tools.values()] + list(extra)

    def answerable(self, calls: Sequence[ToolCall]) -> list[ToolCall]:
        """The calls a registered handler answers."""
        return [call for call in calls if call.function.name in self._tools]

    async def answer(self, call: ToolCall) -> ToolMessage:
        """Run the handler of ``call`` and return the tool message that answers it.

        Never raises for what the handler does: a ``ToolError`` (bad arguments included) is
        reported with its message; any other exception with its type and text (the agent
        reads it, and can tell the user or retry), logged at WARNING on ``ag_ui.client.tools``.
        """
        tool = self._tools[call.function.name]
        error: Optional[str] = None
        try:
            value = await tool.call(call.function.arguments)
        except ToolError as exc:
            error = str(exc)
        except Exception as exc:
            error = f"tool {tool.name!r} raised {type(exc).__name__}: {exc}"
            logger.warning("%s (call %s); the agent gets this error", error, call.id)
            logger.debug("tool %r failed", tool.name, exc_info=True)
        content = error if error is not None else serialize_result(value)
        return ToolMessage(
            id=f"tool-{uuid.uuid4()}", content=content, tool_call_id=call.id, error=error
        )
