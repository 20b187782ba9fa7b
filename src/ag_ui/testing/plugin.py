"""The pytest plugin of ``ag_ui.testing``, registered by entry point (no conftest needed).

Fixtures (each imports the kit only when used, and explains a missing extra):

* ``agui_app``: override it to return the ASGI app under test;
* ``agui_client``: an ``AgentClient`` for ``agui_app`` (in process);
* ``scripted_agent``: makes ``ScriptedAgent``s (``scripted_agent([...])``,
  ``scripted_agent.from_recording(path)``);
* ``agui_faults``: the ``ag_ui.testing.faults`` module (``agui_faults.FaultyApp(app,
  agui_faults.Cut(after_events=3))``);
* ``agui_golden``: ``agui_golden(result)`` compares with ``golden/<test name>.jsonl`` next to
  the test file; ``pytest --agui-update-golden`` writes the files instead;
* ``agui_serve``: ``agui_serve(app)`` serves an app on 127.0.0.1 (free port) until the test ends.

This module is imported by every pytest run in an environment that has the SDK, so it imports
nothing but pytest at load time.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

__all__ = [
    "agui_app",
    "agui_client",
    "agui_faults",
    "agui_golden",
    "agui_serve",
    "pytest_addoption",
    "scripted_agent",
]

_UPDATE_OPTION = "--agui-update-golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agui", "AG-UI test kit (ag_ui.testing)")
    group.addoption(
        _UPDATE_OPTION,
        action="store_true",
        default=False,
        help="write the golden streams compared by the agui_golden fixture instead of "
        "comparing them",
    )


def _kit(module: str, fixture: str) -> Any:
    """Import ``ag_ui.testing.<module>``; fail the test with the fix when an extra is missing."""
    try:
        importlib.import_module("ag_ui._require_sdk")  # the files shared with ag-ui-protocol
        return importlib.import_module(f"ag_ui.testing.{module}")
    except ModuleNotFoundError as exc:
        pytest.fail(
            f"the {fixture} fixture needs the AG-UI test kit's dependencies ({exc}); install "
            "them with: pip install 'ag-ui-sdk[testing]'",
            pytrace=False,
        )
    except ImportError as exc:  # e.g. SharedFilesError: its message names the repair command
        pytest.fail(f"the {fixture} fixture cannot load the AG-UI test kit: {exc}", pytrace=False)


@pytest.fixture
def agui_app() -> Any:
    """The ASGI app under test: override this fixture in your conftest.py or test module."""
    pytest.fail(
        "the agui_client fixture needs the app under test: define a fixture named agui_app "
        "returning it (e.g. `return create_app(my_agent)`)",
        pytrace=False,
    )


@pytest.fixture
def agui_client(agui_app: Any) -> Any:
    """An ``AgentClient`` calling ``agui_app`` in process."""
    return _kit("client", "agui_client").AgentClient(agui_app)


class _ScriptedAgents:
    """``scripted_agent(*responses, **options)`` and ``scripted_agent.from_recording(...)``."""

    def __init__(self, cls: Any) -> None:
        self._cls = cls

    def __call__(self, *responses: Any, **options: Any) -> Any:
        return self._cls(*responses, **options)

    def from_recording(self, source: Any, **options: Any) -> Any:
        return self._cls.from_recording(source, **options)


@pytest.fixture
def scripted_agent() -> _ScriptedAgents:
    """Makes ``ScriptedAgent``s."""
    return _ScriptedAgents(_kit("scripted", "scripted_agent").ScriptedAgent)


@pytest.fixture
def agui_faults() -> Any:
    """The ``ag_ui.testing.faults`` module (fault classes, ``FaultyApp``, ``FaultyTransport``)."""
    return _kit("faults", "agui_faults")


def _golden_name(node_name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", node_name).strip("_")


@pytest.fixture
def agui_golden(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``agui_golden(result, name=None)``: compare with ``golden/<test>[-<name>].jsonl`` beside
    the test file (``--agui-update-golden`` writes it)."""
    golden = _kit("golden", "agui_golden")
    update = bool(request.config.getoption(_UPDATE_OPTION))
    folder = Path(str(request.path)).parent / "golden"

    def check(subject: Any, name: Optional[str] = None) -> None:
        stem = _golden_name(request.node.name) + (f"-{_golden_name(name)}" if name else "")
        golden.assert_golden(subject, folder / f"{stem}.jsonl", update=update or None)

    return check


@pytest.fixture
def agui_serve() -> Iterator[Callable[..., Any]]:
    """``agui_serve(app, **options)`` starts uvicorn on 127.0.0.1 and returns the
    ``LiveServer`` (``.url``); every server is stopped when the test ends."""
    live = _kit("live", "agui_serve")
    servers: list[Any] = []

    def start(app: Any, **options: Any) -> Any:
        server = live.LiveServer(app, **options).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
