"""``agui serve --openai-agents MODULE:AGENT``: an Agents SDK agent of the user's (an ``Agent`` or
a factory) served with threads kept; ``agui run`` talks to it while its model, the SDK's own
``OpenAIResponsesModel``, reaches a local server speaking the Responses wire format through
``OPENAI_BASE_URL``. A wrong spec is one line and exit status 2."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from ag_ui.cli import main
from tests.adapters import responses_script as script
from tests.cli.test_serve import agui, fake, serving
from tests.providers.fake_provider import RESPONSES, FakeProvider

__all__ = ["fake"]  # the fixture, shared with test_serve.py

AGENT_MODULE = textwrap.dedent(
    """\
    from agents import Agent, set_tracing_disabled

    set_tracing_disabled(True)  # nothing leaves 127.0.0.1

    agent = Agent(name="shopkeeper", instructions="Be brief.", model="gpt-5-mini")
    count = 3


    def build(run_input):
        return agent.clone(instructions=f"Be brief in thread {run_input.thread_id}.")    """
)


def _module(directory: Path) -> dict[str, str]:
    """The agent module in ``directory``, and the environment that finds it and the model."""
    (directory / "shop_agent.py").write_text(AGENT_MODULE)
    (directory / "shop_broken.py").write_text("raise RuntimeError('no database configured')\n")
    (directory / "shop_missing.py").write_text("import no_such_dependency_xyz\n")
    path = os.pathsep.join(p for p in (str(directory), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "AGUI_DATA_DIR": str(directory / "data")}


@pytest.mark.parametrize(
    ("spec", "instructions"),
    [("shop_agent:agent", "Be brief."), ("shop_agent:build", "Be brief in thread ")],
)
def test_agui_run_talks_to_a_served_agent(
    spec: str, instructions: str, fake: FakeProvider, tmp_path: Path
) -> None:
    fake.queue(RESPONSES, script.response(script.text("m1", "Hello from ", "the shop.")))
    environment = {
        **_module(tmp_path),
        "OPENAI_BASE_URL": fake.openai_url,
        "OPENAI_API_KEY": "sk-test",
    }
    with serving("--openai-agents", spec, **environment) as url:
        done = agui("run", url, "-m", "hi", **environment)
        threads = agui("threads", "list", url, **environment)
    assert done.returncode == 0, done.stderr
    assert "Hello from the shop." in done.stdout
    (body,) = fake.bodies(RESPONSES)
    assert body["model"] == "gpt-5-mini"
    assert body["instructions"].startswith(instructions)
    assert threads.returncode == 0, threads.stderr  # kept by default, as for --model
    assert "hi" in threads.stdout


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("shop_agent", "agui serve: --openai-agents takes MODULE:ATTRIBUTE (e.g. app:agent"),
        ("no_such_shop:agent", "agui serve: --openai-agents: no module named 'no_such_shop'"),
        ("shop_agent:nothing", "agui serve: --openai-agents: module 'shop_agent' has no 'nothing'"),
        (
            "shop_agent:count",
            "agui serve: --openai-agents: shop_agent:count is not an agents.Agent or a function",
        ),
        (
            "shop_agent:Agent",
            "agui serve: --openai-agents: shop_agent:Agent is not an agents.Agent or a function",
        ),
        (
            "shop_broken:agent",
            "agui serve: --openai-agents: importing 'shop_broken' failed: RuntimeError: no "
            "database configured",
        ),
    ],
)
def test_a_wrong_agent_is_one_line_and_exit_2(
    spec: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _module(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["serve", "--openai-agents", spec, "--no-threads", "--port", "0"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(message)


def test_a_module_importing_what_is_not_installed_is_one_line_and_exit_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _module(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["serve", "--openai-agents", "shop_missing:agent", "--no-threads"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        "agui serve: --openai-agents: module 'shop_missing' imports 'no_such_dependency_xyz', "
        "which is not installed (No module named 'no_such_dependency_xyz')"
    ]


@pytest.mark.parametrize("other", [["--model", "openai:x"], ["--langgraph", "app:graph"]])
def test_openai_agents_excludes_model_and_langgraph(
    other: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--openai-agents", "app:agent", *other])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
