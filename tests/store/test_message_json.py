"""``messages_from_json`` pauses the collector only while it validates, and gives it back as it
found it, also when loads overlap in several threads or the JSON is not messages; stored JSON
never holds NaN/Infinity."""

from __future__ import annotations

import gc
import json
import math
import threading

import pytest
from pydantic import ValidationError

from ag_ui.core import MalformedJSONError
from ag_ui.store._message_json import messages_from_json, state_from_json, state_to_json

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


# -- NaN and Infinity: not JSON, so never stored as such -----------------------------------------


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_stored_messages_with_nan_or_infinity_are_refused(constant: str) -> None:
    text = f'[{{"id":"m","role":"user","content":"x","extra":[{constant}]}}]'
    with pytest.raises(MalformedJSONError) as caught:
        messages_from_json(text.encode())
    assert "invalid stored messages" in str(caught.value)
    assert "NaN, Infinity and -Infinity are not JSON" in str(caught.value)
    assert gc.isenabled()


def test_a_state_with_nan_or_inf_is_stored_as_the_null_the_client_was_sent() -> None:
    state = {"t": math.nan, "deep": [math.inf, {"x": -math.inf, "ok": 1.5}], "s": "\ud83d"}
    text = state_to_json("t1", state)
    assert text == '{"t":null,"deep":[null,{"x":null,"ok":1.5}],"s":"\\ud83d"}'
    assert state_from_json(text) == {
        "t": None,
        "deep": [None, {"x": None, "ok": 1.5}],
        "s": "\ud83d",
    }


def test_a_state_an_earlier_release_stored_with_nan_still_loads() -> None:
    assert state_from_json('{"a":NaN,"b":[Infinity,-Infinity],"c":"NaN"}') == {
        "a": None,
        "b": [None, None],
        "c": "NaN",
    }


def test_a_state_that_is_not_json_still_names_the_thread() -> None:
    looped: list[object] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="thread 't1': the state is not JSON"):
        state_to_json("t1", {"a": math.nan, "loop": looped})
    with pytest.raises(ValueError, match="thread 't1': the state is not JSON"):
        state_to_json("t1", {1, 2})
