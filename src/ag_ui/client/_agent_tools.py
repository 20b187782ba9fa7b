"""``HttpAgent``'s client-side (frontend) tools: the registry (``ClientTools``, which owns
it) as the agent shows it, and the most follow-up runs one ``run_agent`` may make to answer
them. ``run_agent`` runs the follow-up loop; ``add_tool_result`` answers a call by hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Optional, Union, overload

from ag_ui.client._tools import ClientTools, ToolHandler
from ag_ui.tools import FunctionTool

__all__ = ["AgentTools"]


class AgentTools:
    """``HttpAgent``'s client-side tools, delegated to ``_tools``."""

    _tools: ClientTools
    _max_tool_rounds: int

    @property
    def max_tool_rounds(self) -> int:
        """Follow-up runs one ``run_agent`` call may make to answer client tools (1 or more)."""
        return self._max_tool_rounds

    @max_tool_rounds.setter
    def max_tool_rounds(self, rounds: int) -> None:
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise ValueError(
                f"max_tool_rounds must be an integer of 1 or more, got {rounds!r} (to answer "
                "tool calls yourself, leave the tool unregistered and pass its definition in "
                "tools= of the run)"
            )
        self._max_tool_rounds = rounds

    @property
    def tools(self) -> Mapping[str, FunctionTool]:
        """The registered client-side tools by name (read-only; use ``add_tool``)."""
        return self._tools

    def add_tool(
        self,
        handler: ToolHandler,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
    ) -> FunctionTool:
        """Register a client-side tool: a sync or async function or a ``FunctionTool``.

        The name, description and JSON Schema come from the function (its name, docstring and
        signature, as ``ag_ui.tools.tool`` reads them) unless given; ``parameters`` replaces
        the advertised schema (the arguments are still validated against the signature).
        Returns the ``FunctionTool``; a name registered twice is a ``ValueError``.
        """
        return self._tools.add(handler, name=name, description=description, parameters=parameters)

    @overload
    def tool(self, handler: Callable[..., Any]) -> FunctionTool: ...

    @overload
    def tool(
        self,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
    ) -> Callable[[Callable[..., Any]], FunctionTool]: ...

    def tool(
        self,
        handler: Optional[Callable[..., Any]] = None,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
    ) -> Union[FunctionTool, Callable[[Callable[..., Any]], FunctionTool]]:
        """Decorator form of ``add_tool``: ``@agent.tool`` or ``@agent.tool(name=...)`` over a
        function registers it (the name then refers to the ``FunctionTool``, still callable)."""

        def register(function: Callable[..., Any]) -> FunctionTool:
            return self.add_tool(
                function, name=name, description=description, parameters=parameters
            )

        return register(handler) if handler is not None else register

    def remove_tool(self, name: str) -> None:
        """Unregister the client-side tool ``name``."""
        self._tools.remove(name)
