"""AgentState keeps its messages as head + tail: deltas copy the tail, reads see one tuple."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.apply import AgentState, apply_event
from ag_ui.apply._state import _TAIL_LIMIT, _halves
from ag_ui.core import (
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)


def _history(size: int) -> list[dict[str, Any]]:
    return [{"id": f"h{i}", "role": "user", "content": "x"} for i in range(size)]


def test_a_delta_on_a_long_conversation_shares_the_head() -> None:
    start = AgentState(messages=_history(10_000))
    state = apply_event(start, TextMessageStartEvent(message_id="new"))
    head = _halves(state)[0]
    for _ in range(100):
        previous = state
        state = apply_event(state, TextMessageContentEvent(message_id="new", delta="ab"))
        assert _halves(state)[0] is head  # the 10,000 messages are not copied
        assert previous.message_at(10_000)["content"] != state.message_at(10_000)["content"]
    assert state.message_count() == 10_001
    assert state.messages[-1] == {"id": "new", "role": "assistant", "content": "ab" * 100}
    assert state.messages[:10_000] == tuple(_history(10_000))
    # Earlier states are unchanged (the immutability contract).
    assert start.messages == tuple(_history(10_000))


def test_messages_is_one_tuple_joined_once_per_state() -> None:
    state = apply_event(AgentState(messages=_history(3)), TextMessageStartEvent(message_id="m"))
    first = state.messages
    assert isinstance(first, tuple)
    assert len(first) == 4
    assert state.messages is first


def test_a_delta_on_the_last_message_of_a_given_history_moves_it_to_the_tail() -> None:
    start = AgentState(messages=[*_history(5_000), {"id": "a", "role": "assistant", "content": ""}])
    state = apply_event(start, TextMessageContentEvent(message_id="a", delta="1"))
    head, tail = _halves(state)
    assert len(head) == 5_000
    assert tail == ({"id": "a", "role": "assistant", "content": "1"},)
    again = apply_event(state, TextMessageContentEvent(message_id="a", delta="2"))
    assert _halves(again)[0] is head


# Operations: ("start", k) starts message k, ("delta", k) appends to it, ("end", k) merges
# metadata into it; the reference is a plain list edited in place.
_OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["start", "delta", "end"]), st.integers(0, 2 * _TAIL_LIMIT + 5)),
    max_size=400,
)


@settings(max_examples=60, deadline=None)
@given(history=st.integers(0, 2 * _TAIL_LIMIT), operations=_OPERATIONS)
def test_head_and_tail_read_as_the_reference_list(
    history: int, operations: list[tuple[str, int]]
) -> None:
    reference = _history(history)
    state = AgentState(messages=reference)
    reference = [dict(m) for m in reference]
    states = [(state, [dict(m) for m in reference])]
    for kind, k in operations:
        message_id = f"m{k}"
        position = next((i for i, m in enumerate(reference) if m["id"] == message_id), -1)
        if kind == "start":
            state = apply_event(state, TextMessageStartEvent(message_id=message_id))
            if position < 0:
                reference.append({"id": message_id, "role": "assistant", "content": ""})
        elif position >= 0:
            if kind == "delta":
                event: Any = TextMessageContentEvent(message_id=message_id, delta="d")
                reference[position] = {
                    **reference[position],
                    "content": reference[position]["content"] + "d",
                }
            else:
                event = TextMessageEndEvent(message_id=message_id, metadata={"k": k})
                reference[position] = {**reference[position], "metadata": {"k": k}}
            state = apply_event(state, event)
        states.append((state, [dict(m) for m in reference]))
        assert state.message_count() == len(reference)
        assert [state.message_at(i) for i in range(len(reference))] == reference
        assert len(_halves(state)[1]) <= _TAIL_LIMIT
    for earlier, expected in states:
        assert list(earlier.messages) == expected  # no state was changed by a later event
