"""Golden-stream snapshots: compare a run's events with a file checked into the repository.

``assert_golden(result, "tests/golden/weather.jsonl")`` normalises the events (every id becomes
a stable placeholder by first appearance, ``"message-1"``, ``"tool-call-1"``, ...; timestamps are
dropped) and compares them with the file, one wire-JSON event per line. The file is itself a
valid recording (``agui verify`` reads it). To create or accept a changed snapshot, pass
``update=True``, set ``AGUI_UPDATE_GOLDEN=1``, or run pytest with ``--agui-update-golden``
(through the ``agui_golden`` fixture). A missing file fails with the command that creates it.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional, Union

from ag_ui.core.decoding import AnyEvent
from ag_ui.testing.result import RunResult

__all__ = ["UPDATE_ENV", "assert_golden", "normalize_events"]

UPDATE_ENV = "AGUI_UPDATE_GOLDEN"

_DROPPED = frozenset({"timestamp"})


def _prefix(key: str) -> str:
    base = key[:-3] if key.endswith("Ids") else key[:-2] if key.endswith("Id") else key
    return re.sub(r"(?<!^)(?=[A-Z])", "-", base).lower() or "id"


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith(("Id", "Ids"))


class _Ids:
    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def name(self, value: str, key: str) -> str:
        found = self.names.get(value)
        if found is None:
            prefix = _prefix(key)
            self.counts[prefix] = self.counts.get(prefix, 0) + 1
            found = self.names[value] = f"{prefix}-{self.counts[prefix]}"
        return found


def _normalise(value: Any, ids: _Ids, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _normalise(v, ids, k) for k, v in value.items() if k not in _DROPPED}
    if isinstance(value, list):
        return [_normalise(item, ids, key) for item in value]
    if isinstance(value, str) and _is_id_key(key):
        return ids.name(value, key)
    return value


def normalize_events(events: Iterable[Any]) -> list[dict[str, Any]]:
    """Wire-JSON events with ids replaced by placeholders and timestamps removed."""
    ids = _Ids()
    out = []
    for event in events:
        wire = (
            event.model_dump(by_alias=True, mode="json")
            if hasattr(event, "model_dump")
            else dict(event)
        )
        out.append(_normalise(wire, ids))
    return out


def _lines(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in events]


def _update_requested(update: Optional[bool]) -> bool:
    if update is not None:
        return update
    return os.environ.get(UPDATE_ENV, "").lower() in ("1", "true", "yes")


def assert_golden(
    subject: Union[RunResult, Iterable[AnyEvent]],
    path: Union[str, os.PathLike[str]],
    *,
    update: Optional[bool] = None,
) -> None:
    """Fail unless the normalised events equal the golden file at ``path`` (or write it when
    updating; see the module docstring)."""
    events = subject.events if isinstance(subject, RunResult) else list(subject)
    actual = _lines(normalize_events(events))
    target = Path(path)
    if _update_requested(update):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(line + "\n" for line in actual), encoding="utf-8")
        return
    if not target.exists():
        raise AssertionError(
            f"golden stream {target} does not exist: create it with pytest "
            f"--agui-update-golden (or {UPDATE_ENV}=1), review it and commit it"
        )
    expected = [line for line in target.read_text(encoding="utf-8").splitlines() if line.strip()]
    if [json.loads(line) for line in expected] == [json.loads(line) for line in actual]:
        return
    diff = difflib.unified_diff(expected, actual, str(target), "this run", lineterm="", n=2)
    raise AssertionError(
        f"the stream differs from golden stream {target} ({len(actual)} events, golden has "
        f"{len(expected)}); if the change is intended, rerun with --agui-update-golden "
        f"(or {UPDATE_ENV}=1):\n" + "\n".join(diff)
    )
