"""``FunctionTool``: a Python function (sync or async) offered to a model as a tool.

The JSON Schema comes from the signature (types, defaults, ``Annotated[..., Field(...)]``,
parameter descriptions from the docstring) or is given; JSON arguments are validated against the
signature before the call, so the function receives the annotated Python types.
"""

from __future__ import annotations

import functools
import inspect
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional, Union, overload

from pydantic import ValidationError
from pydantic_core import to_json

from ag_ui.core._surrogates import refuse_non_json_constants
from ag_ui.core.errors import (
    MalformedJSONError,
    ToolArgumentsError,
    ToolDefinitionError,
    ToolError,
)
from ag_ui.core.types import Tool
from ag_ui.tools._docstrings import parse_docstring
from ag_ui.tools._signature import describe_signature

__all__ = ["FunctionTool", "ToolResult", "serialize_result", "tool"]

logger = logging.getLogger("ag_ui.tools")

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""The tool names OpenAI and Anthropic both accept."""

ContextTypes = Union[type, tuple[type, ...]]


def serialize_result(value: Any) -> str:
    """A tool's return value as the text a model reads: strings as they are, anything else as
    JSON (pydantic models, dataclasses, dates... included; ``None`` is ``null``)."""
    if isinstance(value, str):
        return value
    return to_json(value, fallback=str).decode()


@dataclass(frozen=True)
class ToolResult:
    """The outcome of running a tool once: what to send back as the tool's answer."""

    tool_name: str
    content: str
    """The text for the tool message (the result, or the error text when it failed)."""
    error: Optional[str] = None
    """Why the tool failed (``None``: it succeeded)."""
    value: Any = None
    """What the function returned (``None`` when it failed)."""

    @property
    def ok(self) -> bool:
        return self.error is None


def _json_problems(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors(include_url=False):
        location = ".".join(str(part) for part in error["loc"])
        kind = error["type"]
        if kind == "json_invalid":
            problems.append(f"not valid JSON ({error['msg']})")
        elif not location:
            problems.append("the arguments must be a JSON object")
        elif kind == "missing":
            problems.append(f'"{location}": missing (required)')
        elif kind == "extra_forbidden":
            problems.append(f'"{location}": not a parameter of this tool')
        else:
            problems.append(f'"{location}": {error["msg"]}')
    return problems


class FunctionTool:
    """A function offered as a tool: name, description, JSON Schema, validation and the call.

    >>> def get_weather(city: str, unit: str = "celsius") -> str:
    ...     '''The current weather in a city.
    ...
    ...     Args:
    ...         city: The city's name, e.g. "Paris".
    ...     '''
    ...     return f"18 degrees {unit} in {city}"
    >>> weather = FunctionTool(get_weather)
    >>> weather.parameters["required"], weather.description
    (['city'], 'The current weather in a city.')

    * ``name`` (default: the function's name) and ``description`` (default: the docstring's
      summary) are what the model sees;
    * ``parameters``: a JSON Schema to advertise instead of the one read from the signature (the
      arguments are still validated against the signature);
    * ``context_type``: a type (or tuple of types); a parameter annotated with it is left out of
      the schema and receives ``call(..., context=...)`` (``ag_ui.providers`` passes its
      ``RunContext`` this way);
    * ``thread`` (default on): run a sync function in a worker thread (needs ``anyio``, which the
      client and server extras bring; without it the function runs inline).
    """

    def __init__(
        self,
        function: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        parameters: Optional[Mapping[str, Any]] = None,
        context_type: ContextTypes = (),
        thread: bool = True,
    ) -> None:
        if not callable(function):
            raise ToolDefinitionError(f"a tool needs a function, got {type(function).__name__}")
        self.function = function
        self.name = name if name is not None else getattr(function, "__name__", "")
        if not _NAME.match(self.name):
            raise ToolDefinitionError(
                f"tool name {self.name!r} is not accepted by model providers: use 1-64 letters, "
                "digits, '_' or '-' (pass name=...)"
            )
        doc = parse_docstring(inspect.getdoc(function))
        self.description = description if description is not None else doc.summary
        contexts = context_type if isinstance(context_type, tuple) else (context_type,)
        self.signature = describe_signature(
            function, tool_name=self.name, descriptions=doc.params, context_types=contexts
        )
        if parameters is not None:
            if not isinstance(parameters, Mapping) or parameters.get("type", "object") != "object":
                raise ToolDefinitionError(
                    f"tool {self.name!r}: parameters must be a JSON Schema of an object "
                    '({"type": "object", "properties": {...}})'
                )
            self.parameters: dict[str, Any] = dict(parameters)
        else:
            self.parameters = self.signature.json_schema()
        self.thread = thread
        # A callable object's coroutine is its __call__ method.
        self._is_async = inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
            type(function).__call__
        )
        functools.update_wrapper(self, function, updated=())

    def __repr__(self) -> str:
        return f"FunctionTool({self.name!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the function directly (a decorated function stays usable as a function)."""
        return self.function(*args, **kwargs)

    @property
    def definition(self) -> Tool:
        """The tool as AG-UI describes tools (``RunAgentInput.tools`` entries)."""
        return Tool(name=self.name, description=self.description, parameters=self.parameters)

    @property
    def takes_context(self) -> bool:
        return self.signature.context_parameter is not None

    def parse_arguments(
        self, arguments: Union[str, bytes, Mapping[str, Any], None]
    ) -> dict[str, Any]:
        """Validate ``arguments`` (JSON text or a mapping) into the function's keyword arguments.

        Empty text means no arguments. Raises ``ToolArgumentsError`` listing every problem.
        """
        model = self.signature.model
        try:
            if arguments is None or (isinstance(arguments, (str, bytes)) and not arguments.strip()):
                validated = model.model_validate({})
            elif isinstance(arguments, (str, bytes)):
                refuse_non_json_constants(arguments, "tool arguments")
                validated = model.model_validate_json(arguments)
            elif isinstance(arguments, Mapping):
                validated = model.model_validate(dict(arguments))
            else:
                raise ToolArgumentsError(
                    self.name,
                    [f"arguments must be JSON text or a mapping, got {type(arguments).__name__}"],
                )
        except ValidationError as exc:
            raise ToolArgumentsError(self.name, _json_problems(exc)) from None
        except MalformedJSONError as exc:
            raise ToolArgumentsError(self.name, list(exc.problems)) from None
        values = {name: getattr(validated, name) for name in self.signature.argument_names}
        if self.signature.takes_extra and validated.model_extra:
            values.update(validated.model_extra)
        return values

    async def call(
        self, arguments: Union[str, bytes, Mapping[str, Any], None], *, context: Any = None
    ) -> Any:
        """Validate ``arguments`` and call the function (awaited when async); returns its value.

        Raises ``ToolArgumentsError`` for bad arguments, and whatever the function raises.
        """
        values = self.parse_arguments(arguments)
        if self.signature.context_parameter is not None:
            values[self.signature.context_parameter] = context
        if self._is_async:
            return await self.function(**values)
        if self.thread:
            try:
                import anyio.to_thread
            except ImportError:  # pragma: no cover - anyio comes with the client/server extras
                pass
            else:
                return await anyio.to_thread.run_sync(functools.partial(self.function, **values))
        result = self.function(**values)
        if inspect.isawaitable(result):  # a sync wrapper returning a coroutine
            result = await result
        return result

    async def run(
        self,
        arguments: Union[str, bytes, Mapping[str, Any], None],
        *,
        context: Any = None,
        expose_errors: bool = False,
    ) -> ToolResult:
        """Call the tool and report the outcome; never raises for what the tool does.

        A ``ToolError`` (``ToolArgumentsError`` included) is reported with its message; any other
        exception is logged and reported as "the tool failed", with its type and text only when
        ``expose_errors`` (they may hold secrets, and the result reaches the user).
        """
        try:
            value = await self.call(arguments, context=context)
        except ToolError as exc:
            return ToolResult(self.name, str(exc), error=str(exc))
        except Exception as exc:
            logger.exception("tool %r failed", self.name)
            if expose_errors:
                text = f"tool {self.name!r} failed: {type(exc).__name__}: {exc}"
            else:
                text = f"tool {self.name!r} failed; the details are in the server log"
            return ToolResult(self.name, text, error=text)
        return ToolResult(self.name, serialize_result(value), value=value)


@overload
def tool(function: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[Mapping[str, Any]] = None,
    context_type: ContextTypes = (),
    thread: bool = True,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    function: Optional[Callable[..., Any]] = None,
    /,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    parameters: Optional[Mapping[str, Any]] = None,
    context_type: ContextTypes = (),
    thread: bool = True,
) -> Union[FunctionTool, Callable[[Callable[..., Any]], FunctionTool]]:
    """Decorator form of ``FunctionTool``: ``@tool`` or ``@tool(name=..., description=...)``.

    >>> @tool
    ... async def add(a: int, b: int) -> int:
    ...     '''Add two integers.'''
    ...     return a + b
    >>> add.name, sorted(add.parameters["properties"])
    ('add', ['a', 'b'])
    """

    def wrap(target: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            target,
            name=name,
            description=description,
            parameters=parameters,
            context_type=context_type,
            thread=thread,
        )

    return wrap(function) if function is not None else wrap
