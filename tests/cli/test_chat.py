"""``agui chat``, driven as a user drives it: through a pseudo-terminal (pexpect), against real
uvicorn servers. The demo agent answers most turns; one agent of this module streams slowly
(``slow``) so that Ctrl-C has a run to cancel."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import anyio
import pexpect
import pytest

from ag_ui.core import RunAgentInput
from ag_ui.demo import create_demo_app, demo_agent
from ag_ui.server import RunContext, create_app
from tests.support.servers import serve

AGUI = [sys.executable, "-m", "ag_ui"]
PROMPT = "you> "
STARTED_SLOW_RUNS: list[str] = []
CANCELLED_SLOW_RUNS: list[str] = []


async def slow_or_demo(run_input: RunAgentInput, ctx: RunContext) -> None:
    """``slow`` streams a word every 0.1 s for a minute; anything else is the demo agent."""
    if ctx.last_user_text().strip() != "slow":
        await demo_agent(run_input, ctx)
        return
    STARTED_SLOW_RUNS.append(run_input.run_id)

    async def ticks() -> Iterator[str]:  # type: ignore[misc]
        for n in range(600):
            await anyio.sleep(0.1)
            yield f"tick{n} "

    try:
        await ctx.say(ticks())
    except anyio.get_cancelled_exc_class():  # the client went away: the server cancels the run
        CANCELLED_SLOW_RUNS.append(run_input.run_id)
        raise


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serve(create_app(slow_or_demo, path="/agent")) as base:
        yield f"{base}/agent"


@pytest.fixture(scope="module")
def demo_url() -> Iterator[str]:
    with serve(create_demo_app()) as base:
        yield f"{base}/agent"


class Chat:
    """An ``agui`` process on a pseudo-terminal, with everything it printed kept."""

    def __init__(self, *args: str, timeout: float = 20) -> None:
        self.child = pexpect.spawn(
            AGUI[0], [*AGUI[1:], *args], encoding="utf-8", timeout=timeout, dimensions=(50, 200)
        )
        self.transcript: list[str] = []

    def expect(self, pattern: str) -> str:
        """Wait for ``pattern`` (literal text); returns what came before it."""
        self.child.expect_exact(pattern)
        before = str(self.child.before)
        self.transcript.append(before + pattern)
        return before

    def say(self, line: str, until: str = PROMPT) -> str:
        """Type ``line`` and Enter; return what was printed after its echo, up to ``until``."""
        self.child.sendline(line)
        printed = self.expect(until).replace("\r\n", "\n")
        echo, _, rest = printed.partition("\n")
        assert echo.endswith(line), (echo, line)
        return rest

    def finish(self) -> int:
        self.child.expect(pexpect.EOF)
        self.transcript.append(str(self.child.before))
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"killed by signal {self.child.signalstatus}"
        return status

    @property
    def output(self) -> str:
        return "".join(self.transcript)


@pytest.fixture
def chats() -> Iterator[list[Chat]]:
    started: list[Chat] = []
    yield started
    for chat in started:
        if chat.child.isalive():
            chat.child.terminate(force=True)


def open_chat(chats: list[Chat], *args: str) -> Chat:
    chat = Chat("chat", *args)
    chats.append(chat)
    chat.expect(PROMPT)
    return chat


def test_a_conversation_streams_text_tools_state_interrupts_and_client_tools(
    demo_url: str, chats: list[Chat]
) -> None:
    chat = open_chat(chats, demo_url, "--tool", "get_location")
    assert "tools you answer: get_location" in chat.output

    greeting = chat.say("hello")
    assert "state change: add /turns 1" in greeting
    assert 'assistant: Hello from the AG-UI demo agent! You said: "hello".' in greeting

    weather = chat.say("weather in Paris")
    assert "(reasoning) The user wants the weather in Paris." in weather
    assert 'tool call get_weather({"city": "Paris"})' in weather
    assert '{"city":"Paris","temperature_c":23,"conditions":"windy"}' in weather
    assert 'add /last_city "Paris"' in weather
    assert "assistant: It is 23°C and windy in Paris." in weather

    asked = chat.say("book a table for two", until="answer> ")
    assert "Confirm the booking: book a table for two" in asked
    assert '{"approved": boolean} (y/n for approved)' in asked
    resumed = chat.say("y")
    assert 'replace /booking/status "confirmed"' in resumed
    assert "assistant: Done: your booking is confirmed." in resumed

    tool_asked = chat.say("where am I?", until="result> ")
    assert "tool call get_location({})" in tool_asked
    assert "tool get_location({}) is yours to answer" in tool_asked
    located = chat.say("Lisbon")
    assert "assistant: You are in Lisbon, where it is 27°C and snowy." in located

    state = json.loads(chat.say("/state"))
    assert state["turns"] == 6
    assert state["last_city"] == "Lisbon"
    assert state["booking"] == {"status": "confirmed"}

    messages = chat.say("/messages")
    assert "user: hello\n" in messages
    assert "tool call get_location({})" in messages
    assert "]: Lisbon" in messages
    assert "assistant: You are in Lisbon" in messages

    chat.child.sendline("/quit")
    assert chat.finish() == 0
    assert "Traceback" not in chat.output


def test_ctrl_c_cancels_a_slow_run_and_the_chat_goes_on(url: str, chats: list[Chat]) -> None:
    chat = open_chat(chats, url)
    chat.child.sendline("slow")
    chat.expect("tick2 ")
    chat.child.sendintr()
    cancelled = chat.expect(PROMPT)
    assert "--- cancelled" in cancelled
    assert chat.child.isalive()
    deadline = time.monotonic() + 10
    while not CANCELLED_SLOW_RUNS and time.monotonic() < deadline:
        time.sleep(0.05)
    assert CANCELLED_SLOW_RUNS == STARTED_SLOW_RUNS  # the connection closed: the server stopped

    after = chat.say("hello again")
    assert 'You said: "hello again"' in after
    messages = chat.say("/messages")
    assert "user: slow" in messages
    assert "assistant: tick0 tick1 tick2" in messages

    chat.child.sendeof()  # Ctrl-D quits
    assert chat.finish() == 0
    assert "Traceback" not in chat.output


def test_interrupt_answers_decline_cancel_and_a_new_thread(
    demo_url: str, chats: list[Chat]
) -> None:
    chat = open_chat(chats, demo_url)
    chat.say("book a table", until="answer> ")
    chat.child.sendintr()  # Ctrl-C at a question: asked again, the interrupt stays open
    chat.expect("answer> ")
    assert "OK, I did not book it." in chat.say("n")

    chat.say("book a room", until="answer> ")
    cancelled = chat.say("")  # an empty line cancels the interrupt
    assert "OK, I did not book it." in cancelled
    assert '"cancelled":true' in cancelled

    chat.say("book a car", until="answer> ")
    assert "new thread" in chat.say("/new")  # a slash command works at any prompt
    assert json.loads(chat.say("/state")) == {}
    assert "(no messages yet)" in chat.say("/messages")
    assert "/messages   the conversation so far" in chat.say("/help")
    assert "unknown command /nope; /help lists them" in chat.say("/nope")
    chat.child.sendline("/quit")
    assert chat.finish() == 0


def test_a_tool_given_as_json_and_left_unanswered(demo_url: str, chats: list[Chat]) -> None:
    definition = json.dumps({"name": "get_location", "description": "Where the user is"})
    chat = open_chat(chats, demo_url, "--tool", definition)
    chat.say("where am i", until="result> ")
    assert "--- get_location left unanswered" in chat.say("")
    # The call is still open; answering it by hand is the next turn's business.
    assert "tool call get_location({})" in chat.say("/messages")
    chat.child.sendeof()
    assert chat.finish() == 0


def test_a_connection_error_is_one_line_and_the_chat_goes_on(chats: list[Chat]) -> None:
    chat = open_chat(chats, "http://127.0.0.1:9/agent")
    failed = chat.say("hello")
    assert failed.splitlines() == [
        "error: TransportError: request to http://127.0.0.1:9/agent failed: ConnectError: "
        "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 9) (is an agent "
        "running at http://127.0.0.1:9/agent? `agui demo` starts one)"
    ]
    # The message never reached an agent: it is not kept, so typing it again sends it once.
    assert "(no messages yet)" in chat.say("/messages")
    chat.child.send("half a line")
    chat.child.sendintr()  # Ctrl-C at the prompt drops the line
    chat.expect(PROMPT)
    assert "(no messages yet)" in chat.say("/messages")
    chat.child.sendeof()
    assert chat.finish() == 0
    assert "Traceback" not in chat.output


def test_agui_demo_on_a_terminal_serves_and_opens_the_chat(chats: list[Chat]) -> None:
    chat = Chat("demo", "--port", "0", "--delay", "0")
    chats.append(chat)
    banner = chat.expect(PROMPT)
    assert "AG-UI demo agent on http://127.0.0.1:" in banner
    assert "--tool get_location" in banner
    chat.say("where am I?", until="result> ")
    assert "You are in Oslo" in chat.say('{"city": "Oslo"}')
    crashed = chat.say("crash")
    assert "run error: [agent_error]" in crashed
    chat.child.sendline("/quit")
    assert chat.finish() == 0
    assert "Traceback" not in chat.output


def test_agui_demo_as_a_background_job_only_serves(chats: list[Chat]) -> None:
    shell = pexpect.spawn("bash", ["--norc", "--noprofile", "-i"], encoding="utf-8", timeout=20)
    try:
        shell.sendline("PS1='$ '")
        shell.sendline(f"{' '.join(AGUI)} demo --port 0 --delay 0 &")
        shell.expect_exact("Ctrl-C stops it.")  # the serve-only ready line, not a chat
        shell.sendline("jobs")
        shell.expect(r"\[1\]\+\s+Running")  # not stopped by reading the terminal
        shell.sendline("kill %1; wait; exit")
        shell.expect(pexpect.EOF)
    finally:
        shell.close(force=True)


def test_lines_from_a_pipe_work_too(demo_url: str) -> None:
    done = subprocess.run(
        [*AGUI, "chat", demo_url],
        input="weather in Oslo\n/state\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "assistant: It is " in done.stdout
    assert "in Oslo." in done.stdout
    assert '"last_city": "Oslo"' in done.stdout
    assert done.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ftp://x"], "is not an http:// or https:// URL"),
        (["http://127.0.0.1:9/agent", "--tool", "two words"], "is not a tool name"),
        (["http://127.0.0.1:9/agent", "--tool", '{"description": "x"}'], 'at least "name"'),
        (["http://127.0.0.1:9/agent", "--tool", "{nope"], "not valid JSON"),
        (["http://127.0.0.1:9/agent", "--idle-timeout", "0"], "must be more than 0 seconds"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = subprocess.run(
        [*AGUI, "chat", *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr
