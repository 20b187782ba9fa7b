"""Drop-in compatibility with the official ``ag-ui-protocol`` 1.0.0, checked against the real
package in its own venv: every public name exists here, and both encode the same bytes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import ag_ui.core
import ag_ui.encoder
from ag_ui.core import parse_event
from ag_ui.encoder import EventEncoder


def _official(python: Path, code: str, stdin: str = "") -> str:
    result = subprocess.run(
        [str(python), "-c", code], input=stdin, capture_output=True, text=True, check=True
    )
    return result.stdout


def test_every_official_public_name_exists_here(official_python: Path) -> None:
    official = json.loads(
        _official(
            official_python,
            "import json, ag_ui.core, ag_ui.encoder; print(json.dumps("
            "[ag_ui.core.__all__, ag_ui.encoder.__all__]))",
        )
    )
    core_names, encoder_names = official
    assert len(core_names) > 100
    assert set(core_names) <= set(ag_ui.core.__all__)
    assert set(encoder_names) <= set(ag_ui.encoder.__all__)


def test_same_events_encode_to_the_same_bytes(official_python: Path, shared_dir: Path) -> None:
    fixture = json.loads((shared_dir / "fixtures" / "null-omission.json").read_text("utf-8"))
    events = [case["input"] for case in fixture["stream"]]
    events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": 'héllo ✓ \n"q"'})
    events.append({"type": "CUSTOM", "name": "n", "value": {"a": [1, 2.5, None, "ü"]}})
    code = (
        "import sys, json\n"
        "from pydantic import TypeAdapter\n"
        "from ag_ui.core import Event\n"
        "from ag_ui.encoder import EventEncoder\n"
        "adapter, encoder = TypeAdapter(Event), EventEncoder()\n"
        "for line in sys.stdin:\n"
        "    sys.stdout.write(json.dumps(encoder.encode(adapter.validate_json(line))) + '\\n')\n"
    )
    official_frames = [
        json.loads(line)
        for line in _official(
            official_python, code, "".join(json.dumps(e) + "\n" for e in events)
        ).splitlines()
    ]
    ours = [EventEncoder().encode(parse_event(event)) for event in events]
    assert len(official_frames) == len(events)
    assert ours == official_frames
