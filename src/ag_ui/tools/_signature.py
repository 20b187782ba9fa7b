"""A function's parameters as a pydantic model (to validate arguments) and a JSON Schema.

The model is built once per tool with ``extra="forbid"``, so an argument the function does not
take is an error the model can read and correct, and the schema says so
(``additionalProperties: false``). Parameters annotated with a context type are left out of
both: the caller supplies them (``FunctionTool.call(..., context=...)``).
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, PydanticSchemaGenerationError, create_model
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo

from ag_ui.core.errors import ToolDefinitionError

__all__ = ["Signature", "describe_signature", "strip_titles"]


@dataclass(frozen=True)
class Signature:
    """What a tool function takes."""

    model: type[BaseModel]
    """Validates the arguments (a JSON object) and holds them as the annotated Python types."""
    argument_names: tuple[str, ...]
    """The parameters the model fills (in signature order)."""
    context_parameter: Optional[str]
    """The parameter that receives the caller's context, if the function takes one."""
    takes_extra: bool
    """The function has ``**kwargs``: arguments it does not name are passed through."""

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = strip_titles(self.model.model_json_schema())
        return schema


def strip_titles(schema: Any) -> Any:
    """``schema`` without pydantic's generated ``title`` keywords (noise to a model, and tokens).

    Only string-valued ``title`` keys go: a property *named* "title" maps to a schema object.
    """
    if isinstance(schema, dict):
        return {
            key: strip_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [strip_titles(item) for item in schema]
    return schema


def _is_context(annotation: Any, context_types: tuple[type, ...]) -> bool:
    if not context_types:
        return False
    candidates = [annotation]
    if typing.get_origin(annotation) is typing.Union:  # Optional[Context]
        candidates = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    return any(
        isinstance(candidate, type) and issubclass(candidate, context_types)
        for candidate in candidates
    )


def _type_hints(function: Callable[..., Any], tool_name: str) -> dict[str, Any]:
    target: Any = function
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = type(function).__call__  # a callable object: its method holds the annotations
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception as exc:  # NameError for a forward reference that does not resolve
        raise ToolDefinitionError(
            f"tool {tool_name!r}: cannot resolve the annotations of {function!r} ({exc}); "
            "import the types it names at module level"
        ) from None


def describe_signature(
    function: Callable[..., Any],
    *,
    tool_name: str,
    descriptions: Mapping[str, str],
    context_types: tuple[type, ...] = (),
) -> Signature:
    """Read ``function``'s parameters into a ``Signature`` (raises ``ToolDefinitionError``)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"tool {tool_name!r}: no signature to read ({exc})") from None
    hints = _type_hints(function, tool_name)
    fields: dict[str, Any] = {}
    names: list[str] = []
    context_parameter: Optional[str] = None
    takes_extra = False
    for name, parameter in parameters.items():
        annotation = hints.get(name, Any)
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: *{name} cannot be given by name in a JSON object; "
                "use named parameters"
            )
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_extra = True
            continue
        if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ToolDefinitionError(
                f"tool {tool_name!r}: parameter {name!r} is positional-only; tool arguments "
                "arrive by name"
            )
        if _is_context(annotation, context_types):
            context_parameter = name
            continue
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        description = descriptions.get(name)
        if isinstance(default, FieldInfo):
            fields[name] = (annotation, default)
        elif description:
            fields[name] = (annotation, Field(default, description=description))
        else:
            fields[name] = (annotation, default)
        names.append(name)
    config = ConfigDict(extra="allow" if takes_extra else "forbid")
    try:
        model = create_model(
            f"{tool_name}_arguments",
            __config__=config,
            **fields,
        )
        model.model_json_schema()  # fail now, not at the first request, for an unschemable type
    except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        hint = (
            " (if it is the run context, pass context_type= so it is supplied, not described)"
            if context_types == ()
            else ""
        )
        raise ToolDefinitionError(
            f"tool {tool_name!r}: a parameter's type has no JSON Schema: {first_line}{hint}"
        ) from None
    return Signature(
        model=model,
        argument_names=tuple(names),
        context_parameter=context_parameter,
        takes_extra=takes_extra,
    )
