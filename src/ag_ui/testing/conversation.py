"""``Conversation``: several runs on one thread, each carrying the history and state so far."""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Protocol

from ag_ui.core.types import RunAgentInput
from ag_ui.testing.inputs import build_input, wire
from ag_ui.testing.result import RunResult


class Runner(Protocol):
    """What a conversation needs from its client (``AgentClient``): one run of an input."""

    async def run(
        self,
        message: Optional[str] = None,
        *,
        input: Optional[RunAgentInput] = None,
        proto: bool = False,
        headers: Optional[Mapping[str, str]] = None,
        stop_after: Optional[int] = None,
    ) -> RunResult: ...


__all__ = ["Conversation"]


class Conversation:
    """Several runs on one thread, each sending the conversation so far (and the state).

    ``send("text")`` adds a user message; ``send(tool_results={call_id: result})`` answers
    frontend tool calls with tool messages; ``send(resume=[...])`` or ``resume()`` answers the
    interrupts of the last run. ``messages`` and ``state`` follow every run; ``results`` keeps
    each run's ``RunResult``.
    """

    def __init__(
        self,
        client: Runner,
        *,
        thread_id: Optional[str] = None,
        messages: Sequence[Any] = (),
        state: Any = None,
        tools: Sequence[Any] = (),
        context: Sequence[Any] = (),
        forwarded_props: Any = None,
    ) -> None:
        self.client = client
        self.thread_id = thread_id or f"thread-{uuid.uuid4().hex[:12]}"
        self.messages: list[dict[str, Any]] = [wire(m) for m in messages]
        self.state = state
        self.tools = list(tools)
        self.context = list(context)
        self.forwarded_props = forwarded_props
        self.results: list[RunResult] = []

    @classmethod
    def after(cls, client: Runner, result: RunResult) -> Conversation:
        """The conversation as it stands after ``result`` (same thread, tools and context, its
        messages and state), e.g. to resume the interrupts it ended with."""
        if result.input is None:
            raise ValueError("the result carries no run input to continue from")
        conversation = cls(
            client,
            thread_id=result.input.thread_id,
            messages=[m for m in result.wire_messages if m.get("role") != "activity"],
            state=result.state,
            tools=result.input.tools,
            context=result.input.context,
            forwarded_props=result.input.forwarded_props,
        )
        conversation.results.append(result)
        return conversation

    @property
    def last(self) -> Optional[RunResult]:
        return self.results[-1] if self.results else None

    def next_input(
        self,
        message: Optional[str] = None,
        *,
        tool_results: Optional[Mapping[str, Any]] = None,
        resume: Optional[Sequence[Any]] = None,
        **fields: Any,
    ) -> RunAgentInput:
        """The input the next ``send`` would post."""
        messages = list(self.messages)
        for call_id, content in (tool_results or {}).items():
            text = content if isinstance(content, str) else _json(content)
            messages.append(
                {
                    "id": f"tool-{uuid.uuid4().hex[:12]}",
                    "role": "tool",
                    "toolCallId": call_id,
                    "content": text,
                }
            )
        options: dict[str, Any] = {
            "messages": messages,
            "state": self.state,
            "tools": fields.pop("tools", self.tools),
            "context": fields.pop("context", self.context),
            "forwarded_props": fields.pop("forwarded_props", self.forwarded_props),
            "thread_id": self.thread_id,
            "resume": resume,
        }
        options.update(fields)
        return build_input(message, **options)

    async def send(
        self,
        message: Optional[str] = None,
        *,
        tool_results: Optional[Mapping[str, Any]] = None,
        resume: Optional[Sequence[Any]] = None,
        proto: bool = False,
        headers: Optional[Mapping[str, str]] = None,
        stop_after: Optional[int] = None,
        **fields: Any,
    ) -> RunResult:
        """Run the next turn; the conversation then holds the run's messages and state."""
        input = self.next_input(message, tool_results=tool_results, resume=resume, **fields)
        result = await self.client.run(
            input=input, proto=proto, headers=headers, stop_after=stop_after
        )
        self.results.append(result)
        if result.status < 300 and not result.cancelled:
            self.messages = [m for m in result.wire_messages if m.get("role") != "activity"]
            self.state = result.state
        return result

    async def resume(
        self,
        payloads: Optional[Mapping[str, Any]] = None,
        *,
        status: str = "resolved",
        **options: Any,
    ) -> RunResult:
        """Answer every interrupt of the last run: ``payloads`` by interrupt id (missing ones
        get ``None``), all with ``status`` (``"resolved"`` or ``"cancelled"``)."""
        last = self.last
        if last is None or not last.interrupts:
            raise ValueError("the last run did not end with interrupts: nothing to resume")
        entries = []
        for interrupt in last.interrupts:
            entry: dict[str, Any] = {"interruptId": interrupt["id"], "status": status}
            if status == "resolved":
                entry["payload"] = (payloads or {}).get(interrupt["id"])
            entries.append(entry)
        return await self.send(resume=entries, **options)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
