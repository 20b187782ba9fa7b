"""The ``framework_server`` fixture: a framework's AG-UI endpoint, served from its own venv.

Usage (any test; the fixture is registered in ``tests/conftest.py``)::

    def test_something(framework_server):
        url = framework_server("langgraph")                 # this SDK forced into the venv
        official_url = framework_server("langgraph", sdk="official")

``framework_server(name, sdk="ours"|"official")`` returns the URL of the AG-UI endpoint
(``http://127.0.0.1:<port>/agent``, POST; ``GET /health`` beside it) of the app in
``tests/frameworks/apps/`` for ``name`` (``"pydantic-ai"`` or ``"langgraph"``), served by
uvicorn from a subprocess in ``.venv-fw-<name>[-ours]``. Servers are started on first use and
shared by the whole session (the apps keep no state a test could trip over, apart from
LangGraph's checkpoints, which are per thread id: use a fresh ``threadId`` per conversation).
Both apps are scripted (no network, no model provider) and react to the last user message;
the scenarios are listed in ``tests/frameworks/scenarios.py`` and in each app's docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.frameworks.servers import FrameworkServer
from tests.frameworks.venvs import Sdk

FrameworkServerFactory = Callable[..., str]


@pytest.fixture(scope="session")
def framework_server() -> Iterator[FrameworkServerFactory]:
    servers: dict[tuple[str, str], FrameworkServer] = {}

    def start(name: str, sdk: Sdk = "ours") -> str:
        key = (name, sdk)
        if key not in servers:
            servers[key] = FrameworkServer(name, sdk)
        return servers[key].url

    try:
        yield start
    finally:
        for server in servers.values():
            server.stop()
