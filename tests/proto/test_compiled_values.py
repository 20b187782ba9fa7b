"""The compiled ``google.protobuf.Value`` codec (``_c/values.c``) against the reference: the
walk through the generated classes (``_values._fill_value`` / ``_walk_value``). Same bytes out,
same JSON in, and it steps aside (None / the sentinel) for whatever only the walk handles."""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from google.protobuf import struct_pb2
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.proto import _values
from ag_ui.proto._accelerator import speedups

SAFE = 2**53 - 1
UNREADABLE = object()

# Wider than proto_strategies' JSON: long strings (multi-byte lengths), keys sharing prefixes
# (the entry order), big objects (more entries than the C side keeps on its stack), tuples.
keys = st.text(alphabet="ab\x00é😀", max_size=4) | st.text(max_size=30)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.floats()  # NaN and the infinities included: they become null
    | st.text(max_size=300)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(keys, inner, max_size=24)
    ),
    max_leaves=40,
)
json_objects = st.dictionaries(keys, json_values, max_size=24)


def _reference_value(obj: Any) -> bytes:
    message = struct_pb2.Value()
    _values._fill_value(message, obj)
    return bytes(message.SerializeToString(deterministic=True))


def _reference_struct(obj: Mapping[str, Any]) -> bytes:
    message = struct_pb2.Struct()
    _values._fill_struct(message, obj)
    return bytes(message.SerializeToString(deterministic=True))


def _walked(data: bytes) -> Any:
    message = struct_pb2.Value.FromString(data)
    return _values._walk_value(message, message.WhichOneof("kind"))


def _same_json(left: Any, right: Any) -> bool:
    """JSON equality: NaN equals NaN, and tuples read as the arrays they are."""
    if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
        return len(left) == len(right) and all(map(_same_json, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_json(left[k], right[k]) for k in left)
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)  # a corrupted double may read as NaN on both sides
    return type(left) is type(right) and left == right


def test_the_compiled_codec_is_loaded() -> None:
    assert speedups is not None


@settings(max_examples=400, deadline=None)
@given(value=json_values)
def test_values_encode_to_the_reference_bytes(value: Any) -> None:
    assert speedups is not None
    assert speedups.encode_value(value) == _reference_value(value)


@settings(max_examples=200, deadline=None)
@given(value=json_objects)
def test_structs_encode_to_the_reference_bytes(value: dict[str, Any]) -> None:
    assert speedups is not None
    assert speedups.encode_struct(value) == _reference_struct(value)


@settings(max_examples=400, deadline=None)
@given(value=json_values)
def test_values_decode_as_the_walk_reads_them(value: Any) -> None:
    assert speedups is not None
    data = _reference_value(value)
    decoded = speedups.decode_value(data, UNREADABLE)
    assert _same_json(decoded, _walked(data))


@settings(max_examples=200, deadline=None)
@given(value=json_objects)
def test_structs_decode_as_the_walk_reads_them(value: dict[str, Any]) -> None:
    assert speedups is not None
    data = _reference_struct(value)
    assert _same_json(
        speedups.decode_struct(data, UNREADABLE),
        _values._walk_struct(struct_pb2.Struct.FromString(data)),
    )


def test_numbers_follow_the_json_rules() -> None:
    assert speedups is not None
    for number, expected in [(5, 5), (5.0, 5), (-0.0, 0), (0.5, 0.5), (SAFE, SAFE)]:
        decoded = speedups.decode_value(speedups.encode_value(number) or b"", UNREADABLE)
        assert _same_json(decoded, expected)
    for special in (math.nan, math.inf, -math.inf):  # as the SSE encoder writes them: null
        assert speedups.encode_value(special) == b"\x08\x00"
    beyond = float(2**60)  # an integral double outside the safe range stays a float
    assert _same_json(speedups.decode_value(speedups.encode_value(beyond) or b"", 0), beyond)


class _Mapping(Mapping[str, Any]):
    def __getitem__(self, key: str) -> Any:
        return {"a": 1}[key]

    def __iter__(self) -> Iterator[str]:
        return iter(["a"])

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize(
    "value",
    [
        2**53,  # would be rounded: the walk raises EncodingError
        -(2**53),
        datetime.date(2026, 11, 30),  # converted by the walk as SSE would
        {1: "non-str key"},
        "\ud800",  # a lone surrogate
        _Mapping(),
        [{"deep": [1]}] * 2 + [1.5, {"x": datetime.time(1)}],
    ],
    ids=["above", "below", "date", "int-key", "surrogate", "mapping", "nested-date"],
)
def test_the_encoder_steps_aside_for_what_only_the_walk_handles(value: Any) -> None:
    assert speedups is not None
    assert speedups.encode_value(value) is None


def test_fill_value_still_converts_what_the_compiled_codec_leaves() -> None:
    message = struct_pb2.Value()
    _values.fill_value(message, {"when": datetime.date(2026, 11, 30), "n": [1, {"k": None}]})
    assert _walked(message.SerializeToString()) == {"when": "2026-11-30", "n": [1, {"k": None}]}


def test_an_empty_object_leaves_the_struct_unset() -> None:
    # As the walk does: callers that need the field present call SetInParent themselves.
    message = struct_pb2.Value()
    _values.fill_struct(message.struct_value, {})
    assert message.WhichOneof("kind") is None


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return value


def test_deep_nesting_is_left_to_the_walk_before_upb_would_refuse_it() -> None:
    assert speedups is not None
    accepted = _nested(30)
    data = speedups.encode_value(accepted)
    assert data == _reference_value(accepted)
    assert _same_json(speedups.decode_value(data, UNREADABLE), accepted)
    assert speedups.encode_value(_nested(31)) is None
    assert speedups.decode_value(_reference_value(_nested(31)), UNREADABLE) is UNREADABLE


@pytest.mark.parametrize(
    "data",
    [
        b"",  # a Value with no kind
        b"\x1a\x05ab",  # string past the end
        b"\x1a\x02\xff\xfe",  # invalid UTF-8
        b"\x11\x00",  # a short double
        b"\x2a\x02\x0a\x05",  # struct entry past the end
        b"\x2a\x04\x0a\x02\x0a\x00",  # an entry without a value
        b"\x32\x02\x12\x00",  # list with a foreign field
        b"\x32\x02\x0a\x00",  # an empty Value in a list
        b"\x20\x02",  # bool 2
        b"\x08\x80\x01",  # null as a two-byte varint
        b"\x40\x01",  # unknown field
        b"\x1a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # overlong length
    ],
)
def test_the_decoder_refuses_what_it_does_not_understand(data: bytes) -> None:
    assert speedups is not None
    assert speedups.decode_value(data, UNREADABLE) is UNREADABLE


_SAMPLES = [
    _reference_value(value)
    for value in [
        {"user": {"id": "u-1", "tags": ["a", "b"], "score": 1.5, "ok": True, "none": None}},
        ["x" * 200, {"é": [1, 2, {"": False}]}],
        {"a": {"b": {"c": {"d": "deep"}}}, "list": [[], {}, [[1]]]},
    ]
]


@settings(max_examples=1500, deadline=None)
@given(
    sample=st.sampled_from(_SAMPLES),
    position=st.integers(min_value=0),
    value=st.integers(min_value=0, max_value=255),
)
def test_the_decoder_never_accepts_what_upb_reads_differently(
    sample: bytes, position: int, value: int
) -> None:
    # decode_flat reads Values straight off the wire, before upb has seen them.
    assert speedups is not None
    corrupted = bytearray(sample)
    corrupted[position % len(corrupted)] = value
    data = bytes(corrupted)
    decoded = speedups.decode_value(data, UNREADABLE)
    if decoded is UNREADABLE:
        return
    try:
        expected = _walked(data)
    except (DecodeError, _values.WireProblem) as exc:
        pytest.fail(f"accepted what the general path rejects ({exc}): {data.hex()}")
    assert _same_json(decoded, expected)
