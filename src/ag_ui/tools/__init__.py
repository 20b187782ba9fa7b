"""Python functions as tools a model can call: JSON Schema, argument validation, the call.

Layer-neutral (pydantic only, like ``ag_ui.core``): the server side (``ag_ui.providers``, whose
agent runs backend tools) and the client side (tools a client answers) both build on it.

>>> from ag_ui.tools import tool
>>> @tool
... def get_weather(city: str) -> str:
...     '''The current weather in a city.'''
...     return f"Sunny in {city}"
>>> get_weather.definition.name, get_weather.parameters["required"]
('get_weather', ['city'])
"""

from __future__ import annotations

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core.errors import ToolArgumentsError, ToolDefinitionError, ToolError
from ag_ui.tools._function import FunctionTool, ToolResult, serialize_result, tool

__all__ = [
    "FunctionTool",
    "ToolArgumentsError",
    "ToolDefinitionError",
    "ToolError",
    "ToolResult",
    "serialize_result",
    "tool",
]
