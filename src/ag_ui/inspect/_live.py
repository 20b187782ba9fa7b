"""Live conversations with the agent at a URL: this process is the client.

Each thread is one ``HttpAgent`` (our client: decoding, verification, reduction, reconnects,
interrupts) and one ``Session``. A ``TeeTransport`` under the agent hands the session each
request body and each frame as received, with its arrival time. Frontend tools declared on the
page are offered with every run; a call the agent leaves for the client is answered
automatically (when the tool has an ``auto`` result) or waits for the person's answer, and the
conversation then continues, as a front end would do it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

import httpx

from ag_ui.client import HttpAgent, build_resume_array
from ag_ui.core.decoding import AnyEvent
from ag_ui.core.errors import AGUIError, HTTPStatusError
from ag_ui.core.types import RunAgentInput
from ag_ui.inspect._session import Session
from ag_ui.inspect._tee import TeeTransport

__all__ = ["MAX_AUTOMATIC_ROUNDS", "LiveThread", "TurnOptions"]

MAX_AUTOMATIC_ROUNDS = 8
"""Runs one turn may chain by answering frontend tools automatically before it stops."""


@dataclass
class TurnOptions:
    """What the composer sends with a turn (all optional)."""

    message: Optional[str] = None
    state: Any = None
    forwarded_props: Any = None
    context: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)
    proto: bool = False

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> TurnOptions:
        def listed(name: str) -> list[dict[str, Any]]:
            value = body.get(name) or []
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ValueError(f"{name} must be a list of objects")
            return value

        message = body.get("message")
        if message is not None and not isinstance(message, str):
            raise ValueError("message must be text")
        return cls(
            message=message or None,
            state=body.get("state"),
            forwarded_props=body.get("forwardedProps"),
            context=listed("context"),
            tools=listed("tools"),
            proto=body.get("transport") == "proto",
        )


class LiveThread:
    """One conversation thread: its agent, its session, and what it waits for."""

    def __init__(
        self,
        session: Session,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        transport: Optional[httpx.AsyncBaseTransport] = None,
        idle_timeout: float = 300.0,
    ) -> None:
        self.session = session
        self._tee = TeeTransport(self, transport)
        self._client = httpx.AsyncClient(transport=self._tee, timeout=httpx.Timeout(30.0))
        self.agent = HttpAgent(
            url, headers=headers, http_client=self._client, idle_timeout=idle_timeout
        )
        self._options = TurnOptions()
        self._began: Optional[float] = None
        self.running = False
        self._pending: set[str] = set()  # frontend tool calls waiting for the person
        session.set_status(thread=self.agent.thread_id, state="idle")

    # -- the tee's reports ----------------------------------------------------------------------

    def _now(self) -> float:
        if self._began is None:
            self._began = time.monotonic()
        return round(time.monotonic() - self._began, 6)

    def request_sent(self, run_input: Optional[RunAgentInput], reconnect: bool) -> None:
        if reconnect:
            self.session.note(f"reconnecting to the run (at {self._now():.3f}s)")
        else:
            self.session.begin_run(run_input, self._now())

    def trace_received(self, trace_id: str) -> None:
        self.session.set_trace_id(trace_id)

    def frame_received(self, event: Optional[AnyEvent], raw: str, problem: Optional[str]) -> None:
        at = self._now()
        if event is None:
            self.session.note(f"frame at {at:.3f}s {problem}: {raw[:200]}")
            return
        self.session.add_event(event, at, raw)

    # -- turns ----------------------------------------------------------------------------------

    async def turn(self, options: TurnOptions) -> None:
        """Send a message (if any) and run until the agent is done or waits for the person."""
        self._options = options
        self.agent.proto = options.proto
        self.session.transport = "proto" if options.proto else "sse"
        if options.state is not None:
            self.agent.set_state(options.state)
        if options.message:
            self.agent.add_message(
                {"id": f"user-{uuid.uuid4().hex[:8]}", "role": "user", "content": options.message}
            )
        await self._run()

    async def answer_tools(self, results: Mapping[str, Any]) -> None:
        """Answer pending frontend tool calls (``{tool_call_id: result}``) and continue."""
        unknown = [call_id for call_id in results if call_id not in self._pending]
        if unknown:
            raise ValueError(f"no pending tool call with id {', '.join(unknown)}")
        for call_id, result in results.items():
            self._add_tool_result(call_id, result)
        await self._run()

    async def resume(self, responses: Mapping[str, Any]) -> None:
        """Answer the open interrupts (``{id: {"status": ..., "payload": ...}}``) and continue."""
        entries = build_resume_array(self.agent.pending_interrupts, responses)
        await self._run(resume=entries)

    async def load(self, thread_id: str) -> None:
        """Restore a thread the agent keeps (``HttpAgent.load_thread``): its stored messages and
        state arrive as one run, and the next turn continues the thread."""
        if self.running:
            raise ValueError("a run of this thread is in progress; wait for it or stop it")
        self.running = True
        self.session.set_status(state="running", thread=thread_id, error=None)
        try:
            await self.agent.load_thread(thread_id)
            self.session.end()
            self.session.set_status(state="idle", thread=thread_id)
        except HTTPStatusError as error:
            self.session.end()
            reason = "no such thread for these credentials" if error.status == 404 else str(error)
            self.session.set_status(state="failed", error=f"thread {thread_id}: {reason}")
        except (AGUIError, ImportError, httpx.HTTPError) as error:
            self.session.end()
            self.session.set_status(state="failed", error=f"{type(error).__name__}: {error}")
        finally:
            self.running = False

    def abort(self) -> None:
        self.agent.abort_run()

    def _add_tool_result(self, call_id: str, result: Any) -> None:
        content = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False)
        self.agent.add_message(
            {
                "id": f"tool-{uuid.uuid4().hex[:8]}",
                "role": "tool",
                "toolCallId": call_id,
                "content": content,
            }
        )

    async def _run(self, resume: Any = None) -> None:
        if self.running:
            raise ValueError("a run of this thread is in progress; wait for it or stop it")
        self.running = True
        self._pending = set()
        self.session.set_status(state="running", error=None, pendingTools=[], interrupts=[])
        try:
            for _ in range(MAX_AUTOMATIC_ROUNDS):
                result = await self.agent.run_agent(
                    tools=[_tool(t) for t in self._options.tools],
                    context=self._options.context,
                    forwarded_props=self._options.forwarded_props,
                    resume=resume,
                )
                resume = None
                self.session.end()
                if result.aborted:
                    self.session.set_status(state="stopped")
                    return
                if result.interrupts:
                    interrupts = [
                        i.model_dump(by_alias=True, mode="json", exclude_none=True)
                        for i in result.interrupts
                    ]
                    self.session.set_status(state="waiting", interrupts=interrupts)
                    return
                if not self._continue_with_tools(result.pending_tool_call_ids):
                    return
            self.session.set_status(
                state="idle", error=f"stopped after {MAX_AUTOMATIC_ROUNDS} automatic tool rounds"
            )
        except (AGUIError, ImportError, httpx.HTTPError) as error:
            self.session.end()
            self.session.set_status(state="failed", error=f"{type(error).__name__}: {error}")
        finally:
            self.running = False

    def _continue_with_tools(self, pending_ids: list[str]) -> bool:
        """Answer what can be answered automatically; True if another run should follow."""
        frontend = {t.get("name"): t for t in self._options.tools}
        calls = _tool_calls(self.agent.messages)
        waiting: list[dict[str, Any]] = []
        answered = False
        for call_id in pending_ids:
            name, arguments = calls.get(call_id, (None, ""))
            tool = frontend.get(name)
            if tool is None:
                continue  # not ours to answer (the agent's own business)
            if "auto" in tool:
                self._add_tool_result(call_id, tool["auto"])
                answered = True
            else:
                waiting.append({"id": call_id, "name": name, "arguments": arguments})
        if waiting:
            self._pending = {w["id"] for w in waiting}
            self.session.set_status(state="waiting", pendingTools=waiting)
            return False
        if not answered:
            self.session.set_status(state="idle")
        return answered

    async def aclose(self) -> None:
        await self._client.aclose()


def _tool_calls(messages: Any) -> dict[str, tuple[str, str]]:
    """Every tool call of the conversation: id -> (tool name, arguments text)."""
    calls: dict[str, tuple[str, str]] = {}
    for message in messages:
        for call in getattr(message, "tool_calls", None) or ():
            calls[call.id] = (call.function.name, call.function.arguments)
    return calls


def _tool(spec: Mapping[str, Any]) -> dict[str, Any]:
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError("every frontend tool needs a name")
    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    if not isinstance(parameters, dict):
        raise ValueError(f"the parameters of tool {name!r} must be a JSON Schema object")
    return {"name": name, "description": spec.get("description") or "", "parameters": parameters}
