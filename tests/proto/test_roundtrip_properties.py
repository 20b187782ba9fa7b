"""Property: every 1.0 event, with each optional field set or unset, round-trips
wire JSON -> model -> protobuf -> model -> wire JSON unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ag_ui.core import parse_event
from ag_ui.core.events import EventType
from ag_ui.proto import decode_event, encode_event
from tests.proto.proto_strategies import EVENTS, fields
from tests.strategies import same_json


def test_strategies_cover_every_event_type() -> None:
    assert set(EVENTS) == {member.value for member in EventType}


@pytest.mark.parametrize("event_type", sorted(EVENTS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_event_round_trips_through_protobuf(event_type: str, data: Any) -> None:
    required, optional = EVENTS[event_type]
    wire = data.draw(fields({"type": st.just(event_type), **required}, optional))
    event = parse_event(wire)
    expected = event.model_dump(by_alias=True, mode="json")
    decoded = decode_event(encode_event(event))
    assert type(decoded) is type(event)
    assert same_json(decoded.model_dump(by_alias=True, mode="json"), expected)
