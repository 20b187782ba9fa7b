"""The documentation harness itself: it finds the blocks and directives, and it fails a block
that does not work (a harness that passes everything would prove nothing)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.docs import harness
from tests.docs.harness import Block, Directives, DocBlockError, extract_blocks, run_block

DOC = textwrap.dedent(
    """\
    # A document

    ```bash
    agui demo
    ```

    <!-- docs-test: uses=recording env=GREETING=hi path=/chat -->
    ```python
    print("one")
    ```

    1. In a list:

       ```py
       print("two")
       ```

    ```pycon
    >>> 1 + 1
    2
    ```

    ~~~python
    print("three")
    ~~~
    """
)


def block(source: str, **directives: object) -> Block:
    return Block(Path("docs/example.md"), 1, textwrap.dedent(source), Directives(**directives))  # type: ignore[arg-type]


def test_python_blocks_are_found_with_their_directives_and_lines() -> None:
    blocks = extract_blocks(Path("docs/example.md"), DOC)
    assert [(b.line, b.source, b.kind) for b in blocks] == [
        (9, 'print("one")\n', "program"),
        (15, 'print("two")\n', "program"),
        (19, ">>> 1 + 1\n2\n", "doctest"),
        (24, 'print("three")\n', "program"),
    ]
    assert blocks[0].directives == Directives(
        uses=("recording",), env=(("GREETING", "hi"),), path="/chat"
    )
    assert blocks[1].directives == Directives()


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<!-- docs-test: uses=x -->\n\nsome prose\n```python\npass\n```\n", "right before"),
        ("<!-- docs-test: uses=x -->\n```bash\nls\n```\n", "only Python blocks run"),
        ("<!-- docs-test: skip=yes -->\n```python\npass\n```\n", "unknown docs-test key 'skip'"),
        ("<!-- docs-test: skip -->\n```python\npass\n```\n", "is not key=value"),
        ("<!-- docs-test: env=NOVALUE -->\n```python\npass\n```\n", "NAME=VALUE"),
        ("<!-- docs-test: uses=x --> text\n```python\npass\n```\n", "one whole line"),
        ("<!-- docs-test: uses=x -->\n", "at the end"),
    ],
)
def test_malformed_directives_fail_instead_of_skipping(text: str, problem: str) -> None:
    with pytest.raises(DocBlockError, match=problem):
        extract_blocks(Path("docs/example.md"), text)


def test_blocks_are_classified_by_their_code() -> None:
    assert block("import uvicorn\nuvicorn.run(app, port=8000)\n").kind == "server"
    assert block("app = object()\n").kind == "app"
    assert block("def f():\n    app = 1\n").kind == "program"
    assert block('URL = "http://127.0.0.1:8000/agent"\n').is_client
    assert not block('print("offline")\n').is_client


def test_a_block_that_raises_fails_with_its_output(tmp_path: Path) -> None:
    with pytest.raises(DocBlockError, match=r"docs/example.md:1 .*exit status 1") as info:
        run_block(block("print('before')\nraise SystemExit('broken on purpose')\n"), tmp_path)
    assert "broken on purpose" in str(info.value)
    assert "before" in str(info.value)


def test_a_block_that_only_logs_a_traceback_fails(tmp_path: Path) -> None:
    source = """\
        import logging
        try:
            undefined_name
        except NameError:
            logging.getLogger("demo").exception("a subscriber failed")
    """
    with pytest.raises(DocBlockError, match="Traceback"):
        run_block(block(source), tmp_path)


def test_a_block_that_never_ends_fails_in_bounded_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness, "PROGRAM_TIMEOUT", 1.0)
    with pytest.raises(DocBlockError, match="did not finish within 1 s"):
        run_block(block("import time\ntime.sleep(30)\n"), tmp_path)


def test_unknown_fixtures_fail(tmp_path: Path) -> None:
    with pytest.raises(DocBlockError, match="unknown docs-test fixture no-such-thing"):
        run_block(block("pass\n", uses=("no-such-thing",)), tmp_path)


def test_env_directives_reach_the_block(tmp_path: Path) -> None:
    out = run_block(
        block("import os\nprint(os.environ['GREETING'])\n", env=(("GREETING", "hi there"),)),
        tmp_path,
    )
    assert out == "hi there\n"


def test_client_blocks_reach_the_demo_agent_on_its_real_port(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    source = """\
        import httpx
        URL = "http://127.0.0.1:8000/agent"
        print(URL)
        print(httpx.get(URL + "/capabilities").json()["identity"]["name"])
    """
    url, name = run_block(block(source), tmp_path, request).splitlines()
    address = request.getfixturevalue("demo_agent_address")
    assert url == f"http://{address}/agent"
    assert address != "127.0.0.1:8000"
    assert name


def test_the_recording_fixture_writes_a_legal_run(tmp_path: Path) -> None:
    source = """\
        from pathlib import Path
        from ag_ui.recording import read_recording
        events = read_recording(Path("run.jsonl").read_bytes()).events
        print(events[0].type.value, events[-1].type.value)
    """
    assert run_block(block(source, uses=("recording",)), tmp_path) == "RUN_STARTED RUN_FINISHED\n"


def test_a_server_block_is_served_checked_and_stopped(tmp_path: Path) -> None:
    source = """\
        import os, pathlib
        import uvicorn
        from ag_ui.server import create_app

        async def agent(run_input, ctx):
            await ctx.say("served")

        pathlib.Path("pid").write_text(str(os.getpid()))
        uvicorn.run(create_app(agent), host="127.0.0.1", port=8000)
    """
    answer = run_block(block(source), tmp_path)
    assert "finished (1 new message(s), 1 new message(s))" in answer
    assert ":8000/" not in answer
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):  # the server process is gone
        os.kill(pid, 0)


def test_an_app_that_streams_an_illegal_run_fails(tmp_path: Path) -> None:
    source = """\
        from ag_ui.core import TextMessageContentEvent
        from ag_ui.server import create_app

        async def agent(run_input, ctx):
            yield TextMessageContentEvent(message_id="m1", delta="no start")

        app = create_app(agent, verify=False)
    """
    with pytest.raises(DocBlockError, match=r"the run served at .* failed: EventSequenceError"):
        run_block(block(source), tmp_path)


def test_a_doctest_block_must_print_what_it_shows(tmp_path: Path) -> None:
    run_block(block(">>> 1 + 1\n2\n"), tmp_path)
    with pytest.raises(DocBlockError, match="doctest failed"):
        run_block(block(">>> 1 + 1\n3\n"), tmp_path)
