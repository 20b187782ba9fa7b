"""JSON Patch diff: exact operations for typical changes, and diff-then-apply round trips."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ag_ui.server import json_patch_diff
from ag_ui.server._diff import escape_pointer_segment, json_equal


def _unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def apply_patch(document: Any, patch: list[dict[str, Any]]) -> Any:
    """A minimal RFC 6902 applier for add/remove/replace on objects (what the diff emits)."""
    document = copy.deepcopy(document)
    for op in patch:
        if op["path"] == "":
            assert op["op"] == "replace"
            document = copy.deepcopy(op["value"])
            continue
        *parents, last = [_unescape(s) for s in op["path"].split("/")[1:]]
        target = document
        for segment in parents:
            target = target[segment]
        if op["op"] == "remove":
            del target[last]
        elif op["op"] == "add":
            assert last not in target
            target[last] = copy.deepcopy(op["value"])
        else:
            assert op["op"] == "replace"
            assert last in target
            target[last] = copy.deepcopy(op["value"])
    return document


def test_nested_changes_give_minimal_operations() -> None:
    old = {"a": 1, "b": {"c": 2, "d": [1, 2]}, "keep": "x"}
    new = {"b": {"c": 3, "d": [1, 2, 3]}, "keep": "x", "e": None}
    assert json_patch_diff(old, new) == [
        {"op": "remove", "path": "/a"},
        {"op": "replace", "path": "/b/c", "value": 3},
        {"op": "replace", "path": "/b/d", "value": [1, 2, 3]},
        {"op": "add", "path": "/e", "value": None},
    ]


def test_equal_documents_give_no_operations() -> None:
    assert json_patch_diff({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []


def test_keys_are_escaped_per_rfc_6901() -> None:
    assert json_patch_diff({}, {"a/b": 1, "m~n": 2}) == [
        {"op": "add", "path": "/a~1b", "value": 1},
        {"op": "add", "path": "/m~0n", "value": 2},
    ]
    assert escape_pointer_segment("~/") == "~0~1"


def test_root_replaced_when_not_both_objects() -> None:
    assert json_patch_diff([1], {"a": 1}) == [{"op": "replace", "path": "", "value": {"a": 1}}]
    assert json_patch_diff({"a": 1}, None) == [{"op": "replace", "path": "", "value": None}]


def test_json_types_are_not_conflated() -> None:
    assert json_patch_diff({"a": 1}, {"a": True}) == [
        {"op": "replace", "path": "/a", "value": True}
    ]
    assert json_patch_diff({"a": "1"}, {"a": 1}) == [{"op": "replace", "path": "/a", "value": 1}]
    assert json_equal(1, 1.0)
    assert not json_equal([True], [1])


def test_patch_values_are_copies() -> None:
    new = {"a": {"b": [1]}}
    patch = json_patch_diff({}, new)
    new["a"]["b"].append(2)
    assert patch == [{"op": "add", "path": "/a", "value": {"b": [1]}}]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet="ab/~", max_size=3), children, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_applying_the_diff_gives_the_new_document(old: Any, new: Any) -> None:
    assert json_equal(apply_patch(old, json_patch_diff(old, new)), new)
