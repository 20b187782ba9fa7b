"""The pytest plugin, in pytest runs of their own (subprocesses, no conftest): the fixtures,
the golden-update flag, missing extras explained, and a cheap import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

USING_EVERY_FIXTURE = """
import httpx
import pytest
from ag_ui.server import create_app

pytestmark = pytest.mark.anyio


async def agent(run_input, ctx):
    await ctx.say("plugged in")


@pytest.fixture
def agui_app():
    return create_app(agent)


async def test_client(agui_client):
    result = await agui_client.run("hi")
    assert result.ok and result.text == "plugged in"


async def test_scripted_and_faults(scripted_agent, agui_faults):
    from ag_ui.testing import AgentClient
    script = scripted_agent([{"type": "TEXT_MESSAGE_CHUNK", "messageId": "m", "delta": "x"}])
    app = agui_faults.FaultyApp(script.app(), agui_faults.DropTerminal())
    result = await AgentClient(app).run("hi")
    assert result.verification.error.rule == "END"


async def test_golden(agui_client, agui_golden):
    agui_golden(await agui_client.run("hi"))


def test_serve(agui_app, agui_serve):
    server = agui_serve(agui_app)
    body = {"threadId": "t", "runId": "r", "messages": []}
    response = httpx.post(server.url + "/agent", json=body)
    assert response.status_code == 200 and b"plugged in" in response.content
"""


def test_every_fixture_works_without_a_conftest(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_kit=USING_EVERY_FIXTURE)
    first = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--agui-update-golden")
    first.assert_outcomes(passed=4)
    golden = pytester.path / "golden" / "test_golden_asyncio.jsonl"
    assert golden.read_text().startswith('{"type":"RUN_STARTED","threadId":"thread-1"')
    again = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    again.assert_outcomes(passed=4)
    golden.write_text(golden.read_text().replace("plugged in", "unplugged"))
    changed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "golden")
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*the stream differs from golden stream*--agui-update-golden*"])


def test_a_missing_app_fixture_is_explained(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_no_app="def test_it(agui_client):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*define a fixture named agui_app returning it*"])


def test_missing_extras_are_explained_only_when_a_fixture_is_used(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in for an environment without httpx: importing it fails as a missing module does.
    shadow = pytester.mkdir("no_httpx")
    (shadow / "httpx.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'httpx'\", name='httpx')\n"
    )
    pytester.makepyfile(
        test_plain="def test_unrelated():\n    assert True\n",
        test_kit="def test_kit(scripted_agent, agui_faults):\n    pass\n",
    )
    monkeypatch.setenv("PYTHONPATH", str(shadow))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:anyio")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "the agui_faults fixture needs the AG-UI test kit's dependencies (No module named "
            "'httpx'); install them with: pip install 'ag-ui-sdk[[]testing]'"
        ]
    )


def test_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, ag_ui.testing.plugin\n"
        "heavy = [m for m in ('httpx', 'starlette', 'anyio', 'pydantic', 'ag_ui.core', 'uvicorn')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_plugin_is_registered_by_entry_point() -> None:
    from importlib.metadata import entry_points

    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("ag_ui") == "ag_ui.testing.plugin"
    assert not (Path(__file__).parent / "conftest.py").exists()
