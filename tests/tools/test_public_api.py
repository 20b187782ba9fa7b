"""``ag_ui.tools`` is layer-neutral: its surface is pinned and it loads no optional dependency."""

from __future__ import annotations

import subprocess
import sys

import ag_ui.tools


def test_public_surface() -> None:
    assert ag_ui.tools.__all__ == sorted(ag_ui.tools.__all__)
    assert ag_ui.tools.__all__ == [
        "FunctionTool",
        "ToolArgumentsError",
        "ToolDefinitionError",
        "ToolError",
        "ToolResult",
        "serialize_result",
        "tool",
    ]
    for name in ag_ui.tools.__all__:
        assert getattr(ag_ui.tools, name) is not None


def test_importing_it_loads_neither_http_nor_server_libraries() -> None:
    code = (
        "import sys, ag_ui.tools\n"
        "names = ('httpx', 'starlette', 'anyio', 'openai', 'anthropic', 'ag_ui.server',"
        " 'ag_ui.client')\n"
        "loaded = [m for m in names if m in sys.modules]\n"
        "print(loaded)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"
