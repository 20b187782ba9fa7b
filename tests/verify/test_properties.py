"""Property tests: generated legal streams pass; compaction and chunking keep the result."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.apply import AgentState, EventPipeline, apply_event
from ag_ui.core import parse_event
from ag_ui.verify import EventVerifier, compact_events

Event = dict[str, Any]
tags = st.sampled_from([None, None, "s1", "s2"])
words = st.text(alphabet='abc xyz{}":', max_size=6)


def _tag(tag: str | None) -> dict[str, Any]:
    return {} if tag is None else {"subagentRunId": tag}


@st.composite
def legal_streams(draw: st.DrawFn) -> list[Event]:
    """One or more runs of non-overlapping text/tool/reasoning blocks and loose events."""
    events: list[Event] = []
    counter = iter(range(10_000))
    state_keys: list[str] = []
    for run in range(draw(st.integers(1, 2))):
        events.append({"type": "RUN_STARTED", "threadId": "t", "runId": f"r{run}"})
        tool_calls: list[str] = []
        for _ in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(["text", "tool", "reasoning", "loose", "step", "result"]))
            tag = draw(tags)
            inner = [
                _loose(draw, next(counter), state_keys) for _ in range(draw(st.integers(0, 2)))
            ]
            if kind == "text":
                mid = f"m{next(counter)}"
                events.append({"type": "TEXT_MESSAGE_START", "messageId": mid, **_tag(tag)})
                for delta in draw(st.lists(words, max_size=4)):
                    events.append(
                        {
                            "type": "TEXT_MESSAGE_CONTENT",
                            "messageId": mid,
                            "delta": delta,
                            **_tag(draw(st.sampled_from([None, tag]))),
                        }
                    )
                    events.extend(inner)
                    inner = []
                events.append({"type": "TEXT_MESSAGE_END", "messageId": mid})
            elif kind == "tool":
                cid = f"c{next(counter)}"
                events.append(
                    {"type": "TOOL_CALL_START", "toolCallId": cid, "toolCallName": "f", **_tag(tag)}
                )
                events.extend(inner)
                for delta in draw(st.lists(words, max_size=4)):
                    events.append({"type": "TOOL_CALL_ARGS", "toolCallId": cid, "delta": delta})
                events.append({"type": "TOOL_CALL_END", "toolCallId": cid})
                tool_calls.append(cid)
            elif kind == "reasoning":
                rid = f"r{next(counter)}"
                events += [
                    {"type": "REASONING_START", "messageId": rid, **_tag(tag)},
                    {"type": "REASONING_MESSAGE_START", "messageId": rid, "role": "reasoning"},
                    {"type": "REASONING_MESSAGE_CONTENT", "messageId": rid, "delta": draw(words)},
                    {"type": "REASONING_MESSAGE_END", "messageId": rid},
                    {"type": "REASONING_END", "messageId": rid},
                ]
            elif kind == "step":
                name = draw(st.sampled_from(["plan", "act"]))
                events += [
                    {"type": "STEP_STARTED", "stepName": name, **_tag(tag)},
                    *inner,
                    {"type": "STEP_FINISHED", "stepName": name, **_tag(tag)},
                ]
            elif kind == "result" and tool_calls:
                events.append(
                    {
                        "type": "TOOL_CALL_RESULT",
                        "messageId": f"t{next(counter)}",
                        "toolCallId": draw(st.sampled_from(tool_calls)),
                        "content": draw(words),
                    }
                )
            else:
                events.extend(inner)
        events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{run}"})
    return events


def _loose(draw: st.DrawFn, n: int, state_keys: list[str]) -> Event:
    kind = draw(st.sampled_from(["custom", "snapshot", "delta", "activity"]))
    if kind == "custom":
        return {"type": "CUSTOM", "name": "c", "value": n}
    if kind == "snapshot":
        state_keys.clear()
        return {"type": "STATE_SNAPSHOT", "snapshot": {"snap": n}}
    if kind == "delta":
        key = f"k{n}"
        state_keys.append(key)
        return {
            "type": "STATE_DELTA",
            "delta": [{"op": "add", "path": f"/{key}", "value": draw(words)}],
        }
    return {
        "type": "ACTIVITY_SNAPSHOT",
        "messageId": f"a{n}",
        "activityType": "plan",
        "content": {"n": n},
    }


def _pipeline(events: list[Event]) -> AgentState:
    pipeline = EventPipeline(state={})
    for event in events:
        pipeline.feed(parse_event(event))
    pipeline.finish()
    return pipeline.agent_state


@settings(max_examples=150, deadline=None)
@given(legal_streams())
def test_every_generated_legal_stream_passes(events: list[Event]) -> None:
    verifier = EventVerifier()
    for event in events:
        verifier.feed(parse_event(event))
    verifier.finish()


@settings(max_examples=150, deadline=None)
@given(legal_streams())
def test_compacted_stream_applies_to_the_same_result(events: list[Event]) -> None:
    expected = _pipeline(events)
    compacted = compact_events([parse_event(e) for e in events])
    assert len(compacted) <= len(events)
    state = AgentState(state={})
    for event in compacted:
        state = apply_event(state, event)
    assert (state.messages, state.state) == (expected.messages, expected.state)
    # and the compacted stream is itself legal
    verifier = EventVerifier()
    for event in compacted:
        verifier.feed(event)
    verifier.finish()


def _as_chunks(events: list[Event]) -> list[Event]:
    """Rewrite each untagged text message as TEXT_MESSAGE_CHUNK events."""
    out: list[Event] = []
    for event in events:
        kind = event["type"]
        tagged = "subagentRunId" in event
        if kind == "TEXT_MESSAGE_START" and not tagged:
            out.append({"type": "TEXT_MESSAGE_CHUNK", "messageId": event["messageId"]})
        elif kind == "TEXT_MESSAGE_CONTENT" and not tagged:
            out.append({"type": "TEXT_MESSAGE_CHUNK", "delta": event["delta"]})
        elif kind == "TEXT_MESSAGE_END" and not tagged:
            continue  # the next event of the lane closes it
        else:
            out.append(event)
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(words, max_size=4), min_size=1, max_size=4))
def test_chunked_text_builds_the_same_messages(texts: list[list[str]]) -> None:
    events: list[Event] = [{"type": "RUN_STARTED", "threadId": "t", "runId": "r"}]
    for index, deltas in enumerate(texts):
        events.append({"type": "TEXT_MESSAGE_START", "messageId": f"m{index}"})
        events += [
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"m{index}", "delta": d} for d in deltas
        ]
        events.append({"type": "TEXT_MESSAGE_END", "messageId": f"m{index}"})
    events.append({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"})
    assert _pipeline(_as_chunks(events)).messages == _pipeline(events).messages
