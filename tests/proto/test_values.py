"""Open JSON <-> ``google.protobuf.Value``: the byte reader agrees with the upb walk."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import struct_pb2
from hypothesis import given, settings

from ag_ui.proto._value_bytes import Unreadable, read_struct, read_value
from ag_ui.proto._values import _walk_struct, _walk_value, fill_struct, fill_value
from tests.proto.proto_strategies import json_object, json_value


@settings(max_examples=300, deadline=None)
@given(value=json_value)
def test_byte_reader_matches_the_walk_for_values(value: Any) -> None:
    message = struct_pb2.Value()
    fill_value(message, value)
    walked = _walk_value(message, message.WhichOneof("kind"))
    assert read_value(message.SerializeToString()) == walked
    assert read_value(message.SerializeToString(deterministic=True)) == walked


@settings(max_examples=200, deadline=None)
@given(value=json_object)
def test_byte_reader_matches_the_walk_for_structs(value: dict[str, Any]) -> None:
    message = struct_pb2.Struct()
    fill_struct(message, value)
    assert read_struct(message.SerializeToString()) == _walk_struct(message) == value


@pytest.mark.parametrize(
    "data",
    [b"", b"\x1a\x05ab", b"\x11\x00", b"\x2a\x02\x0a\x05", b"\x32\x02\x12\x00", b"\x40\x01"],
)
def test_byte_reader_refuses_what_it_does_not_understand(data: bytes) -> None:
    with pytest.raises(Unreadable):
        read_value(data)
