"""``agui verify`` reports A2UI findings of a recording as warnings (the AG-UI stream is legal)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ag_ui.a2ui import Surface, component

SURFACE = Surface("card", "call-1")
PAINTED = SURFACE.components([component("root", "Card", child="body")])  # "body" is missing


def test_a_recording_with_a_broken_and_a_drifted_surface(tmp_path: Path) -> None:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        PAINTED.model_dump(mode="json", by_alias=True, exclude_none=True),
        {
            "type": "ACTIVITY_SNAPSHOT",
            "messageId": "a2ui-surface-call-2",
            "activityType": "a2ui-surface",
            "content": {"operations": []},
        },
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
    ]
    path = tmp_path / "surfaces.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "ag_ui", "verify", str(path), "--output", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert report["warnings"] == [
        "event 2 (line 2): error [a2ui.reference] component 'root' names 'body', which surface "
        "'card' does not define (message a2ui-surface-call-1)",
        "event 3 (line 3): error [a2ui.content-operations] content holds 'operations'; the "
        "renderer reads 'a2ui_operations' (rename the key) (message a2ui-surface-call-2)",
    ]
    assert [m["role"] for m in report["messages"]] == ["activity", "activity"]
