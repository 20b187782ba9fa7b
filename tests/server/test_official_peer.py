"""The official ``ag-ui-protocol`` 1.0.0 (in ``.venv-official``) as a peer: every event the demo
agent streams, in every scenario, validates against the official models and re-serializes to
the same JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import httpx
import pytest

from ag_ui.demo import create_demo_app
from tests.support.servers import serve
from tests.support.sse import sse_events

from .conftest import user_body

REPO = Path(__file__).resolve().parents[2]
OFFICIAL_PYTHON = REPO / ".venv-official" / "bin" / "python"

CHECK = """
import json, sys
from pydantic import TypeAdapter
from ag_ui.core import Event
adapter = TypeAdapter(Event)
for line in sys.stdin:
    event = adapter.validate_json(line)
    again = json.loads(adapter.dump_json(event, by_alias=True, exclude_none=True))
    if again != json.loads(line):
        print("DIFFERENT", line.strip(), json.dumps(again))
print("checked")
"""


def test_demo_events_validate_in_the_official_package(tmp_path: Path) -> None:
    if not OFFICIAL_PYTHON.exists():
        pytest.fail("run scripts/test once to create .venv-official (the official package peer)")
    bodies = [
        user_body("hello", state={}),
        user_body("weather in Paris", state={}),
        user_body("book a table", state={}),
        user_body("research protocols", state={}),
        user_body("crash", state={}),
        user_body(
            "",
            state={"turns": 1},
            resume=[
                {
                    "interruptId": "confirm-call-r0-2",
                    "status": "resolved",
                    "payload": {"approved": True},
                }
            ],
        ),
    ]
    lines = []
    with serve(create_demo_app()) as url, httpx.Client(timeout=10) as http:
        for body in bodies:
            response = http.post(f"{url}/agent", json=body)
            lines += [json.dumps(event) for event in sse_events(response.text)]
    types = {json.loads(line)["type"] for line in lines}
    assert len(types) >= 20  # most of the protocol is exercised
    done = subprocess.run(
        [OFFICIAL_PYTHON, "-c", CHECK],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,  # never import our src/ from the official venv
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "checked\n"
