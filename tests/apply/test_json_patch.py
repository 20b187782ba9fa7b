"""RFC 6902 JSON Patch with path copying (``ag_ui.json_patch``, re-exported by ``ag_ui.apply``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ag_ui.apply import PatchError, apply_patch
from ag_ui.json_patch import json_equal, parse_pointer

DOC = {"a": {"b": [1, 2, 3], "c": "x"}, "d/e": 1, "f~g": 2, "n": None}


@pytest.mark.parametrize(
    ("operations", "expected"),
    [
        ([{"op": "add", "path": "/z", "value": 1}], {**DOC, "z": 1}),
        (
            [{"op": "add", "path": "/a/b/0", "value": 0}],
            {**DOC, "a": {"b": [0, 1, 2, 3], "c": "x"}},
        ),
        (
            [{"op": "add", "path": "/a/b/-", "value": 4}],
            {**DOC, "a": {"b": [1, 2, 3, 4], "c": "x"}},
        ),
        ([{"op": "add", "path": "/a/c", "value": None}], {**DOC, "a": {"b": [1, 2, 3], "c": None}}),
        ([{"op": "add", "path": "", "value": [1]}], [1]),
        ([{"op": "remove", "path": "/a/b/1"}], {**DOC, "a": {"b": [1, 3], "c": "x"}}),
        ([{"op": "remove", "path": "/d~1e"}], {"a": DOC["a"], "f~g": 2, "n": None}),
        ([{"op": "replace", "path": "/f~0g", "value": 3}], {**DOC, "f~g": 3}),
        ([{"op": "replace", "path": "", "value": 7}], 7),
        ([{"op": "move", "from": "/a/c", "path": "/c"}], {**DOC, "a": {"b": [1, 2, 3]}, "c": "x"}),
        (
            [{"op": "move", "from": "/a/b/0", "path": "/a/b/2"}],
            {**DOC, "a": {"b": [2, 3, 1], "c": "x"}},
        ),
        ([{"op": "copy", "from": "/a/b", "path": "/b"}], {**DOC, "b": [1, 2, 3]}),
        (
            [
                {"op": "test", "path": "/a/b", "value": [1, 2, 3]},
                {"op": "test", "path": "/n", "value": None},
            ],
            DOC,
        ),
        # A copy followed by a change at the copy must not show through the original.
        (
            [
                {"op": "copy", "from": "/a", "path": "/a2"},
                {"op": "add", "path": "/a2/b/-", "value": 9},
            ],
            {**DOC, "a2": {"b": [1, 2, 3, 9], "c": "x"}},
        ),
    ],
)
def test_operations(operations: list[dict[str, Any]], expected: Any) -> None:
    original = copy.deepcopy(DOC)
    assert apply_patch(DOC, operations) == expected
    assert original == DOC


@pytest.mark.parametrize(
    ("operations", "index", "path"),
    [
        ([{"op": "replace", "path": "/missing", "value": 1}], 0, "/missing"),
        ([{"op": "remove", "path": "/a/b/3"}], 0, "/a/b/3"),
        ([{"op": "add", "path": "/a/b/5", "value": 1}], 0, "/a/b/5"),
        ([{"op": "add", "path": "/a/b/01", "value": 1}], 0, "/a/b/01"),
        ([{"op": "add", "path": "/x/y", "value": 1}], 0, "/x/y"),
        (
            [
                {"op": "add", "path": "/ok", "value": 1},
                {"op": "test", "path": "/ok", "value": True},
            ],
            1,
            "/ok",
        ),
        ([{"op": "move", "from": "/a", "path": "/a/b/x"}], 0, "/a/b/x"),
        ([{"op": "copy", "from": "/nope", "path": "/x"}], 0, "/nope"),
        ([{"op": "remove", "path": ""}], 0, ""),
        ([{"op": "add", "path": "a", "value": 1}], 0, "a"),
        ([{"op": "add", "path": "/~2", "value": 1}], 0, "/~2"),
        ([{"op": "frobnicate", "path": "/a"}], 0, "/a"),
        ([{"op": "add", "path": "/a"}], 0, "/a"),
        ([{"op": "add", "path": "/a/c/x", "value": 1}], 0, "/a/c/x"),
    ],
)
def test_failures_are_typed_and_atomic(
    operations: list[dict[str, Any]], index: int, path: str
) -> None:
    original = copy.deepcopy(DOC)
    with pytest.raises(PatchError) as caught:
        apply_patch(DOC, operations)
    assert (caught.value.operation_index, caught.value.path) == (index, path)
    assert caught.value.operation == operations[index]
    assert original == DOC


def test_pointer_and_equality_helpers() -> None:
    assert parse_pointer("") == []
    assert parse_pointer("/a~1b/~0/") == ["a/b", "~", ""]
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(True, 1)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


def test_path_copying_shares_untouched_subtrees() -> None:
    big = {"keep": {"x": list(range(1000))}, "edit": {"v": 1}}
    out = apply_patch(big, [{"op": "replace", "path": "/edit/v", "value": 2}])
    assert out["keep"] is big["keep"]
    assert big["edit"] == {"v": 1}


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4)
    ),
    max_leaves=12,
)


def _pointers(doc: Any, prefix: str = "") -> list[str]:
    found = [prefix]
    if isinstance(doc, dict):
        for key, value in doc.items():
            escaped = key.replace("~", "~0").replace("/", "~1")
            found += _pointers(value, f"{prefix}/{escaped}")
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            found += _pointers(value, f"{prefix}/{index}")
    return found


@settings(max_examples=200, deadline=None)
@given(doc=json_values, data=st.data())
def test_property_never_mutates_input_and_replace_then_test_holds(doc: Any, data: Any) -> None:
    original = copy.deepcopy(doc)
    path = data.draw(st.sampled_from(_pointers(doc)))
    value = data.draw(json_values)
    out = apply_patch(
        doc,
        [
            {"op": "replace", "path": path, "value": value},
            {"op": "test", "path": path, "value": value},
        ],
    )
    assert doc == original
    if path == "":
        assert out == value


@settings(max_examples=200, deadline=None)
@given(doc=json_values, data=st.data())
def test_property_add_then_remove_restores(doc: Any, data: Any) -> None:
    containers = [p for p in _pointers(doc) if isinstance(_get(doc, p), (dict, list))]
    if not containers:
        return
    parent = data.draw(st.sampled_from(containers))
    target = _get(doc, parent)
    key = "-" if isinstance(target, list) else "__new__"
    if isinstance(target, dict) and key in target:
        return
    added = apply_patch(doc, [{"op": "add", "path": f"{parent}/{key}", "value": 1}])
    last = str(len(target)) if isinstance(target, list) else key
    assert apply_patch(added, [{"op": "remove", "path": f"{parent}/{last}"}]) == doc


def _get(doc: Any, pointer: str) -> Any:
    for token in parse_pointer(pointer):
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc
