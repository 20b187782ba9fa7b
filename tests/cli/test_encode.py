"""``agui encode``: JSON Lines in, validated SSE frames out, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ag_ui.cli import main


def test_encodes_each_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text(
        '{"type": "RUN_STARTED", "thread_id": "t", "runId": "r"}\n\n{"type": "THINKING_START"}\n',
        encoding="utf-8",
    )
    assert main(["encode", str(source)]) == 0
    assert capsys.readouterr().out == (
        'data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\n'
        'data: {"type":"THINKING_START"}\n\n'
    )


def test_names_the_bad_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "events.jsonl"
    source.write_text('{"type": "STEP_STARTED", "stepName": "a"}\n{"type": "NOPE"}\n', "utf-8")
    assert main(["encode", str(source)]) == 1
    captured = capsys.readouterr()
    assert "line 2" in captured.err
    assert 'unknown event type "NOPE"' in captured.err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "encode" in capsys.readouterr().out
