"""``ScriptedAgent``: an agent that plays back events you give it, or a recording.

The script is one list of events per response (models or wire dicts), or a recording in any
format ``ag_ui.recording`` reads (timed JSON Lines from ``agui record``, JSON Lines, SSE,
protobuf); each recorded run answers one request. Pacing: ``"instant"``, a fixed delay in
seconds between events, or ``"recorded"`` (the recording's own arrival times, ``speed`` times
faster). Requests are answered with the runs in order, starting again after the last
(``select="sequence"``), or with the run whose recorded input ends with the same user message
(``select="match"``). ``requests`` keeps every ``RunAgentInput`` received, for assertions.

Serve it as an agent function (``create_app(scripted)``, ``AgentEndpoint(scripted)``), as a
ready app (``scripted.app()``, the server toolkit around it with verification off, so the
script's events go out as written), or as a raw ASGI app (``scripted.raw_app()``: the exact
events, no toolkit guarantees at all, for testing clients against broken servers). RUN_STARTED
and RUN_FINISHED get the request's thread and run ids unless ``keep_ids=True``.

>>> from ag_ui.testing import ScriptedAgent
>>> agent = ScriptedAgent([
...     {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
...     {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hello"},
...     {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
... ])
>>> app = agent.app()  # POST /agent answers with those three events
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Optional, Union

import anyio

from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.decoding import AnyEvent, parse_any_event
from ag_ui.core.errors import AGUIValidationError
from ag_ui.core.events import BaseEvent, EventType
from ag_ui.core.types import RunAgentInput, UserMessage
from ag_ui.recording import RecordedEvent, RecordedRun, Recording, read_recording
from ag_ui.verify import CompatibilityTranslator

__all__ = ["Pacing", "ScriptedAgent"]

Pacing = Union[Literal["instant", "recorded"], float]
Script = Sequence[Union[BaseEvent, Mapping[str, Any]]]
RecordingSource = Union[Recording, bytes, str, "os.PathLike[str]"]

_RETARGETED = (EventType.RUN_STARTED, EventType.RUN_FINISHED)


def _as_event(item: Any, where: str) -> AnyEvent:
    if isinstance(item, BaseEvent):
        return item  # type: ignore[return-value]
    if isinstance(item, Mapping):
        try:
            return parse_any_event(dict(item))
        except AGUIValidationError as exc:
            raise ValueError(f"{where} is not an AG-UI event: {exc}") from None
    raise TypeError(f"{where} is a {type(item).__name__}; give events or event dicts")


def _last_user_text(messages: Sequence[Any]) -> Optional[str]:
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            content = message.content
            return content if isinstance(content, str) else str(content)
    return None


class ScriptedAgent:
    """Plays back scripted responses; see the module docstring."""

    def __init__(
        self,
        *responses: Script,
        pacing: Pacing = "instant",
        speed: float = 1.0,
        select: Literal["sequence", "match"] = "sequence",
        keep_ids: bool = False,
        capabilities: Optional[AgentCapabilities] = None,
    ) -> None:
        runs = [
            RecordedRun(
                events=[
                    RecordedEvent(_as_event(item, f"response {r} item {i}"))
                    for i, item in enumerate(script)
                ]
            )
            for r, script in enumerate(responses)
        ]
        self._setup(runs, pacing, speed, select, keep_ids, capabilities)

    @classmethod
    def from_recording(
        cls,
        source: RecordingSource,
        *,
        pacing: Optional[Pacing] = None,
        speed: float = 1.0,
        select: Literal["sequence", "match"] = "sequence",
        keep_ids: bool = False,
        capabilities: Optional[AgentCapabilities] = None,
    ) -> ScriptedAgent:
        """From a recording (a ``Recording``, its bytes, or a file path). ``pacing`` defaults
        to ``"recorded"`` when the recording has arrival times, else ``"instant"``. The
        capabilities a recording's header carries (``agui record`` stores them) are served
        unless ``capabilities`` is given."""
        if isinstance(source, Recording):
            recording = source
        else:
            data = source if isinstance(source, bytes) else Path(source).read_bytes()
            recording = read_recording(data)
        if capabilities is None and isinstance(recording.header.get("capabilities"), dict):
            capabilities = AgentCapabilities.model_validate(recording.header["capabilities"])
        agent = cls.__new__(cls)
        chosen: Pacing = (
            pacing if pacing is not None else ("recorded" if recording.timed else "instant")
        )
        runs = [run for run in recording.runs if run.events]
        agent._setup(runs, chosen, speed, select, keep_ids, capabilities)
        agent.recording = recording
        return agent

    def _setup(
        self,
        runs: list[RecordedRun],
        pacing: Pacing,
        speed: float,
        select: str,
        keep_ids: bool,
        capabilities: Optional[AgentCapabilities],
    ) -> None:
        if not runs:
            raise ValueError("the script has no events: give at least one response")
        if pacing == "recorded" and not all(e.at is not None for r in runs for e in r.events):
            raise ValueError(
                "pacing='recorded' needs arrival times: use a timed recording (agui record) "
                "or pacing='instant' / a delay in seconds"
            )
        if not (pacing in ("instant", "recorded") or isinstance(pacing, (int, float))):
            raise ValueError(f"pacing must be 'instant', 'recorded' or seconds, got {pacing!r}")
        if isinstance(pacing, (int, float)) and pacing < 0:
            raise ValueError("a pacing delay must be >= 0 seconds")
        if speed <= 0:
            raise ValueError("speed must be > 0")
        if select not in ("sequence", "match"):
            raise ValueError(f"select must be 'sequence' or 'match', got {select!r}")
        self.runs = runs
        self.pacing: Pacing = pacing
        self.speed = speed
        self.select = select
        self.keep_ids = keep_ids
        self.capabilities = capabilities
        self.recording: Optional[Recording] = None
        self.requests: list[RunAgentInput] = []
        self._next = 0

    # -- choosing and pacing ------------------------------------------------------------------

    def pick(self, run_input: RunAgentInput) -> RecordedRun:
        """The recorded run that answers ``run_input`` (and advance the sequence)."""
        if self.select == "match":
            wanted = _last_user_text(run_input.messages)
            for run in self.runs:
                if run.input is not None and _last_user_text(run.input.messages) == wanted:
                    return run
        run = self.runs[self._next % len(self.runs)]
        self._next += 1
        return run

    def delays(self, run: RecordedRun) -> list[float]:
        """Seconds to wait before each event of ``run``."""
        count = len(run.events)
        if self.pacing == "instant":
            return [0.0] * count
        if self.pacing == "recorded":
            out: list[float] = []
            previous = run.at if run.at is not None else (run.events[0].at or 0.0)
            for recorded in run.events:
                at = recorded.at if recorded.at is not None else previous
                out.append(max(0.0, at - previous) / self.speed)
                previous = at
            return out
        delay = float(self.pacing)
        return [0.0] + [delay] * (count - 1)

    def events_for(self, run: RecordedRun, run_input: RunAgentInput) -> list[AnyEvent]:
        """The run's events as this request gets them (ids retargeted unless ``keep_ids``)."""
        events = [recorded.event for recorded in run.events]
        if self.keep_ids:
            return events
        ids = {"thread_id": run_input.thread_id, "run_id": run_input.run_id}
        return [
            event.model_copy(update=ids) if event.type in _RETARGETED else event for event in events
        ]

    async def stream(self, run_input: RunAgentInput) -> AsyncIterator[AnyEvent]:
        """The paced events answering ``run_input`` (records the request)."""
        self.requests.append(run_input)
        run = self.pick(run_input)
        for delay, event in zip(self.delays(run), self.events_for(run, run_input), strict=True):
            if delay:
                await anyio.sleep(delay)
            yield event

    # -- serving ------------------------------------------------------------------------------

    async def __call__(self, run_input: RunAgentInput, ctx: Any) -> AsyncIterator[BaseEvent]:
        """The agent function: ``create_app(scripted)``. The server toolkit sends only events
        of 1.0 and later, so removed ``THINKING_*`` events of a legacy recording go out as
        their REASONING_* translation (``raw_app()`` sends them as recorded)."""
        translator = CompatibilityTranslator()
        async for event in self.stream(run_input):
            translated = translator.translate(event)
            if isinstance(translated, BaseEvent):
                yield translated

    def app(self, path: str = "/agent", **options: Any) -> Any:
        """A Starlette app serving the script at ``POST path`` with the server toolkit
        (``create_app`` options accepted; ``verify`` defaults to False so the script goes out as
        written, the toolkit still adds RUN_STARTED/RUN_FINISHED when the script lacks them)."""
        from ag_ui.server import create_app

        options.setdefault("verify", False)
        options.setdefault("capabilities", self.capabilities)
        return create_app(self, path=path, **options)

    def raw_app(self, path: str = "/agent") -> Any:
        """A bare ASGI app streaming exactly the script's events (SSE, or protobuf when asked),
        with no toolkit guarantees: broken scripts stay broken."""
        from ag_ui.testing._raw_app import RawScriptApp

        return RawScriptApp(self, path)
