"""The upstream 1.1 conformance corpus as this SDK reads it: fixtures, the server, the matchers.

A fixture (``streams/*.json``, format in upstream's ``spec/1.1/conformance/README.md``) is one
event stream plus what a client must make of it. ``CorpusServer`` serves each stream's events
verbatim as SSE at ``/<name>`` and records the ``RunAgentInput`` it was sent; ``subset_match``
and ``path_value`` are the README's matchers (arrays by exact length, objects on the keys the
expectation names).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.support.servers import serve

STREAMS = Path(__file__).parent / "streams"

_LANE = "python"
"""The override key this lane reads first. Upstream has none for it yet, so the TypeScript
one applies next: this SDK follows ``@ag-ui/client``, and what the TypeScript lane is held to
is what this one is held to."""

_FALLBACK_LANE = "typescript"


def manifest() -> list[str]:
    """Fixture names in the committed listing, without ``.json``."""
    lines = (STREAMS / "MANIFEST.txt").read_text(encoding="utf-8").splitlines()
    return [line[: -len(".json")] for line in lines if line and not line.startswith("#")]


@dataclass(frozen=True)
class Fixture:
    name: str
    raw: dict[str, Any]
    expect: dict[str, Any]

    @property
    def stream(self) -> list[Any]:
        return list(self.raw["stream"])

    @property
    def peer_ceiling(self) -> Optional[str]:
        client = self.raw.get("client") or {}
        ceiling = client.get("maxProtocolVersion")
        return str(ceiling) if ceiling is not None else None

    @property
    def input_messages(self) -> list[Any]:
        return list((self.raw.get("input") or {}).get("messages") or [])

    @property
    def is_about_the_peer(self) -> bool:
        """Pinned to an older peer or given an input: about what a client sends, so a file
        verifier (which has no peer and sends nothing) is held only to the verdict."""
        return "client" in self.raw or "input" in self.raw


def load(name: str) -> Fixture:
    raw = json.loads((STREAMS / f"{name}.json").read_text(encoding="utf-8"))
    expect = dict(raw["expect"])
    overrides = raw.get("expectOverrides") or {}
    override = overrides.get(_LANE) or overrides.get(_FALLBACK_LANE) or {}
    expect.update({key: value for key, value in override.items() if key != "intentional"})
    return Fixture(name=name, raw=raw, expect=expect)


def sse_body(events: list[Any]) -> bytes:
    """Each event verbatim as one SSE ``data:`` frame."""
    return b"".join(
        b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events
    )


@dataclass
class CorpusServer:
    url: str = ""
    requests: dict[str, Any] = field(default_factory=dict)

    async def _endpoint(self, request: Request) -> Response:
        name = request.path_params["name"]
        self.requests[name] = json.loads(await request.body())
        body = sse_body(load(name).stream)
        return Response(body, media_type="text/event-stream")

    @contextmanager
    def running(self) -> Iterator[CorpusServer]:
        app = Starlette(routes=[Route("/{name}", self._endpoint, methods=["POST"])])
        with serve(app, lifespan="off") as url:
            self.url = url
            yield self


_MISSING = object()


def path_value(value: Any, dotted: str) -> Any:
    """The value at ``"0.delta.1.op"`` (list indexes and object keys), or ``_MISSING``."""
    for part in dotted.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


def has_path(value: Any, dotted: str) -> bool:
    return path_value(value, dotted) is not _MISSING


def subset_problem(actual: Any, expected: Any, where: str = "") -> Optional[str]:
    """``None`` when ``actual`` matches ``expected`` as the README's subset match does."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where or '/'}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}/{key}: missing (expected {value!r})"
            problem = subset_problem(actual[key], value, f"{where}/{key}")
            if problem:
                return problem
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where or '/'}: expected {len(expected)} items, got {actual!r}"
        for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
            problem = subset_problem(got, want, f"{where}/{index}")
            if problem:
                return problem
        return None
    if type(actual) is not type(expected) and not (
        isinstance(actual, (int, float))
        and isinstance(expected, (int, float))
        and not isinstance(actual, bool)
        and not isinstance(expected, bool)
    ):
        return f"{where or '/'}: expected {expected!r}, got {actual!r}"
    if actual != expected:
        return f"{where or '/'}: expected {expected!r}, got {actual!r}"
    return None
