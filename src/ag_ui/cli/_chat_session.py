"""The ``agui chat`` session: a read-eval-print loop over one thread of an ``HttpAgent``.

The loop is synchronous (``input()``, so readline's line editing and history work) and each run
is one ``anyio.run``: while it streams, SIGINT cancels the run instead of ending the program
(``_cancellable``), and the chat goes back to its prompt. What arrived before the cancel stays
in the conversation, as the user saw it.

After a run: an interrupt is asked at the prompt and the answer resumes the run; a tool call the
run left pending (a tool offered with ``--tool``) is asked at the prompt and the answer goes
back as its tool message, then the agent runs again. Slash commands work at every prompt.
"""

from __future__ import annotations

import functools
import json
import signal
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, TextIO

import anyio

from ag_ui.cli._run_text import TextReporter
from ag_ui.core.errors import AGUIError, HTTPStatusError, RunError
from ag_ui.core.types import ToolMessage

if TYPE_CHECKING:
    from ag_ui.client import HttpAgent, RunAgentResult, SubscriberParams
    from ag_ui.core.types import Interrupt, Tool, ToolCall

__all__ = ["ChatSession", "HELP"]

HELP = """\
Type a message and press Enter; the answer streams as it arrives.
  /state      the agent state (JSON)
  /messages   the conversation so far
  /new        start a new thread (empty conversation and state)
  /help       this text
  /quit       leave (Ctrl-D too)
Ctrl-C cancels a run that is streaming (the chat goes on) or clears the line you are typing."""

_YES = frozenset({"y", "yes", "true", "ok"})
_NO = frozenset({"n", "no", "false"})


class _Quit(Exception):
    """The user asked to leave (``/quit`` or end of input)."""


class _Restart(Exception):
    """``/new`` was typed at a question: the question is void (the thread is gone)."""


class _ChatReporter(TextReporter):
    """``TextReporter`` that also counts the events of a run (0: the agent was never reached)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        self.events = 0

    def on_event(self, params: SubscriberParams) -> None:
        self.events += 1


@dataclass
class _Outcome:
    result: Optional[RunAgentResult] = None
    error: Optional[BaseException] = None
    cancelled: bool = False


class ChatSession:
    """One chat over ``agent``'s thread; ``tools`` are offered with every run and answered by
    the user at the prompt. ``read`` reads a line (``input``); ``out`` is where it all goes."""

    def __init__(
        self,
        agent: HttpAgent,
        *,
        tools: Sequence[Tool] = (),
        read: Callable[[str], str] = input,
        out: Optional[TextIO] = None,
    ) -> None:
        self.agent = agent
        self.tools = list(tools)
        self._read = read
        self.out = out if out is not None else sys.stdout
        self._initial_state = agent.state

    # -- output --------------------------------------------------------------------------

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    # -- the loop ------------------------------------------------------------------------

    def loop(self, *, restore: bool = False) -> int:
        """Chat until ``/quit`` or end of input; returns the exit status (0). ``restore``:
        first load the agent's thread from the server (``HttpAgent.load_thread``), for a
        server that keeps threads; a thread it does not have is started."""
        tools = (
            f" · tools you answer: {', '.join(t.name for t in self.tools)}" if self.tools else ""
        )
        self.say(
            f"agui chat · {self.agent.url} · thread {self.agent.thread_id}{tools}\n"
            "/help lists the commands; Ctrl-C cancels a run, Ctrl-D quits."
        )
        if restore:
            self._restore()
        try:
            while True:
                try:
                    if self.agent.pending_interrupts:
                        self._answer_interrupts()
                        continue
                    line = self._ask("you> ")
                    if line is None or not line.strip():
                        continue
                    self._send(line)
                except _Restart:
                    continue
        except _Quit:
            return 0

    def _ask(self, prompt: str) -> Optional[str]:
        """A line from the user; ``None`` when Ctrl-C dropped it. Slash commands are handled
        here, at every prompt (``None`` is returned for them too)."""
        try:
            line = self._read(prompt)
        except EOFError:
            self.say("")
            raise _Quit from None
        except KeyboardInterrupt:
            self.say("")
            return None
        if line.strip().startswith("/"):
            self._command(line.strip())
            return None
        return line

    def _command(self, line: str) -> None:
        name = line.split()[0].lower()
        if name in ("/quit", "/exit", "/q"):
            raise _Quit
        if name == "/help":
            self.say(HELP)
        elif name == "/state":
            self.say(json.dumps(self.agent.state, indent=2, ensure_ascii=False))
        elif name == "/messages":
            self._show_messages()
        elif name == "/new":
            agent = self.agent
            agent.thread_id = str(uuid.uuid4())
            agent.set_messages([])
            agent.set_state(self._initial_state)
            agent.pending_interrupts = []
            self.say(f"new thread {agent.thread_id}")
            raise _Restart
        else:
            self.say(f"unknown command {name}; /help lists them")

    def _restore(self) -> None:
        thread_id = self.agent.thread_id
        outcome = self._cancellable(lambda: self.agent.load_thread(thread_id))
        error = outcome.error
        if isinstance(error, HTTPStatusError) and error.status in (403, 404):
            self.agent.thread_id = thread_id  # a new thread of that id
            reason = "nothing stored yet" if error.status == 404 else "the server keeps none"
            self.say(f"thread {thread_id}: {reason}; starting it")
        elif error is not None:
            self._report(error)
        elif not outcome.cancelled:
            self.say(f"restored thread {thread_id} ({len(self.agent.messages)} messages):")
            self._show_messages()

    def _show_messages(self) -> None:
        messages = self.agent.messages
        if not messages:
            self.say("(no messages yet)")
        for message in messages:
            content = getattr(message, "content", None)
            if content is None or isinstance(content, str):
                text = content or ""
            else:  # content parts, an activity's content
                text = json.dumps(content, default=str, ensure_ascii=False)
            if isinstance(message, ToolMessage):
                error = f" (error: {message.error})" if message.error else ""
                self.say(f"tool [{message.tool_call_id}]: {text}{error}")
                continue
            if text:
                self.say(f"{message.role}: {text}")
            for call in getattr(message, "tool_calls", None) or []:
                self.say(
                    f"{message.role}: tool call {call.function.name}({call.function.arguments})"
                )

    # -- runs ----------------------------------------------------------------------------

    def _send(self, text: str) -> None:
        before = list(self.agent.messages)
        self.agent.add_message({"id": f"user-{uuid.uuid4()}", "role": "user", "content": text})
        self._run(undo=before)

    def _run(self, *, resume: Optional[list[Any]] = None, undo: Optional[list[Any]] = None) -> None:
        """Run (resuming with ``resume``), then follow up: interrupts and pending tool calls.

        ``undo`` is the conversation to restore when the agent was never reached, so that the
        user's message can simply be typed again.
        """
        while True:
            reporter = _ChatReporter(self.out)
            outcome = self._cancellable(
                functools.partial(
                    self.agent.run_agent, resume=resume, tools=self.tools, subscriber=reporter
                )
            )
            reporter.end_line()
            if outcome.cancelled:
                self.say("--- cancelled (what arrived stays in the conversation)")
                return
            if outcome.error is not None:
                if undo is not None and reporter.events == 0:
                    self.agent.set_messages(undo)
                self._report(outcome.error)
                return
            result = outcome.result
            assert result is not None
            if result.outcome_type == "cancelled":
                self.say("--- the agent cancelled the run")
            if result.interrupts:
                return  # the loop asks them next (they stay open until answered)
            if not result.pending_tool_calls or not self._answer_tools(result.pending_tool_calls):
                return
            resume, undo = None, None

    def _cancellable(self, start: Callable[[], Awaitable[RunAgentResult]]) -> _Outcome:
        """Run ``start()`` on an event loop of its own; SIGINT cancels it (not the chat)."""
        outcome = _Outcome()

        async def main() -> None:
            async with anyio.create_task_group() as tasks:

                async def run() -> None:
                    try:
                        outcome.result = await start()
                    except (AGUIError, OSError, ImportError) as exc:
                        outcome.error = exc
                    finally:
                        tasks.cancel_scope.cancel()

                async def watch() -> None:
                    with anyio.open_signal_receiver(signal.SIGINT) as signals:
                        async for _ in signals:
                            outcome.cancelled = True
                            tasks.cancel_scope.cancel()
                            return

                tasks.start_soon(watch)
                tasks.start_soon(run)

        try:
            anyio.run(main)
        except KeyboardInterrupt:  # Ctrl-C before the watcher was listening
            outcome.cancelled = True
        return outcome

    def _report(self, error: BaseException) -> None:
        from ag_ui.cli.run import _hint

        if isinstance(error, RunError):
            return  # the reporter printed the RUN_ERROR line as it arrived
        self.say(f"error: {type(error).__name__}: {error}{_hint(error, self.agent.url)}")

    # -- questions -----------------------------------------------------------------------

    def _answer_interrupts(self) -> None:
        """Ask each open interrupt at the prompt, then resume the run with the answers."""
        from ag_ui.client import build_resume_array

        answers: dict[str, dict[str, Any]] = {}
        for interrupt in self.agent.pending_interrupts:
            answer = self._ask_interrupt(interrupt)
            if answer is None:
                return  # Ctrl-C: asked again at the next turn of the loop
            answers[interrupt.id] = answer
        self._run(resume=build_resume_array(self.agent.pending_interrupts, answers))

    def _ask_interrupt(self, interrupt: Interrupt) -> Optional[dict[str, Any]]:
        message = f": {interrupt.message}" if interrupt.message else ""
        flag = _boolean_field(interrupt.response_schema)
        shape = f" matching {_compact_schema(interrupt.response_schema)}"
        if interrupt.response_schema is None:
            shape = ""
        yes_no = f" (y/n for {flag})" if flag else ""
        self.say(f"interrupt {interrupt.id} ({interrupt.reason}){message}")
        self.say(f"  answer with JSON{shape}{yes_no}; an empty line cancels it")
        line = self._ask("answer> ")
        if line is None:
            return None
        text = line.strip()
        if not text:
            return {"status": "cancelled"}
        if flag and text.lower() in _YES | _NO:
            return {"status": "resolved", "payload": {flag: text.lower() in _YES}}
        try:
            payload = json.loads(text)
        except ValueError:
            payload = text  # plain text is a JSON string
        return {"status": "resolved", "payload": payload}

    def _answer_tools(self, calls: Sequence[ToolCall]) -> bool:
        """Ask the user for each pending call's result; True when all were answered."""
        for call in calls:
            self.say(
                f"tool {call.function.name}({call.function.arguments}) is yours to answer: type "
                "its result (text or JSON); an empty line leaves it unanswered"
            )
            line = self._ask("result> ")
            if line is None or not line.strip():
                self.say(f"--- {call.function.name} left unanswered")
                return False
            self.agent.add_tool_result(call.id, line.strip())
        return True


def _boolean_field(schema: Any) -> Optional[str]:
    """The one required boolean property of an object schema (a yes/no answer), if any."""
    if not isinstance(schema, dict):
        return None
    properties = schema.get("properties")
    required = schema.get("required") or []
    if not isinstance(properties, dict) or len(required) != 1:
        return None
    name = required[0]
    field = properties.get(name)
    if isinstance(field, dict) and field.get("type") == "boolean":
        return str(name)
    return None


def _compact_schema(schema: Any) -> str:
    """``{"approved": boolean}`` for an object schema; compact JSON for anything else."""
    if isinstance(schema, dict) and isinstance(schema.get("properties"), dict):
        fields = ", ".join(
            f'"{name}": {spec.get("type", "any") if isinstance(spec, dict) else "any"}'
            for name, spec in schema["properties"].items()
        )
        return "{" + fields + "}"
    return json.dumps(schema, separators=(",", ":"))
