"""``messages_from_json`` pauses the collector only while it validates, and gives it back as it
found it, also when loads overlap in several threads or the JSON is not messages."""

from __future__ import annotations

import gc
import json
import threading

import pytest
from pydantic import ValidationError

from ag_ui.store._message_json import messages_from_json

WIRE = json.dumps(
    [{"id": f"m{i}", "role": "user", "content": f"message {i}"} for i in range(2000)]
).encode()


def test_messages_come_back_and_the_collector_is_on_again() -> None:
    assert gc.isenabled()
    messages = messages_from_json(WIRE)
    assert [m.id for m in messages[:2]] == ["m0", "m1"]
    assert gc.isenabled()
    assert not gc.is_tracked(messages[0])  # plain: left out of the collector


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        messages_from_json(WIRE)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_bad_json_restores_the_collector() -> None:
    with pytest.raises(ValidationError):
        messages_from_json(b'[{"id": 1}]')
    assert gc.isenabled()


def test_overlapping_loads_restore_it_once_all_are_done() -> None:
    errors: list[BaseException] = []

    def load() -> None:
        try:
            for _ in range(20):
                messages_from_json(WIRE)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert gc.isenabled()
