"""Hypothesis strategies that build any valid AG-UI model from its type annotations.

Walking the annotations (rather than hand-listing fields) means a field added to a model is
generated, and so round-trip tested, without touching the tests.
"""

from __future__ import annotations

import enum
import json
import re
import typing
from typing import Any, Union

import annotated_types
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from ag_ui.core.deprecated import BinaryInputContent

MAX_SAFE_INTEGER = 2**53 - 1

json_scalars = st.none() | st.booleans() | st.text(max_size=8)
json_scalars |= st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
json_scalars |= st.floats(allow_nan=False, allow_infinity=False, width=64)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=6,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=3)

_pointer_segment = st.text(max_size=5).map(lambda s: s.replace("~", "~0").replace("/", "~1"))
json_pointers = st.lists(_pointer_segment, max_size=3).map(
    lambda parts: "".join("/" + part for part in parts)
)


def _patch_operation() -> st.SearchStrategy[dict[str, Any]]:
    with_value = st.fixed_dictionaries(
        {
            "op": st.sampled_from(["add", "replace", "test"]),
            "path": json_pointers,
            "value": json_values,
        }
    )
    removal = st.fixed_dictionaries({"op": st.just("remove"), "path": json_pointers})
    moves = st.fixed_dictionaries(
        {"op": st.sampled_from(["move", "copy"]), "from": json_pointers, "path": json_pointers}
    )
    return with_value | removal | moves


patch_operations = st.lists(_patch_operation(), max_size=3)

# Fields whose declared type is looser than what validation accepts.
_FIELD_OVERRIDES: dict[str, st.SearchStrategy[Any]] = {
    "delta@StateDeltaEvent": patch_operations,
    "patch@ActivityDeltaEvent": patch_operations,
    "path": json_pointers,
    "from_": json_pointers,
}


def _constrained_int(metadata: list[Any]) -> st.SearchStrategy[int]:
    low, high = -MAX_SAFE_INTEGER, MAX_SAFE_INTEGER
    for item in metadata:
        if isinstance(item, annotated_types.Ge):
            low = int(item.ge)  # type: ignore[call-overload]
        if isinstance(item, annotated_types.Le):
            high = int(item.le)  # type: ignore[call-overload]
    return st.integers(low, high)


def for_annotation(annotation: Any, metadata: list[Any] | None = None) -> st.SearchStrategy[Any]:
    metadata = list(metadata or [])
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        extra: list[Any] = []
        for item in args[1:]:
            extra.extend(item.metadata if isinstance(item, FieldInfo) else [item])
        return for_annotation(args[0], metadata + extra)
    if annotation is Any or annotation is object:
        return json_values
    if annotation is type(None):
        return st.none()
    if annotation is str:
        return st.text(max_size=12)
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return _constrained_int(metadata)
    if annotation is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is Union or (origin is not None and str(origin) == "<class 'types.UnionType'>"):
        return st.one_of([for_annotation(arg) for arg in args if arg is not BinaryInputContent])
    if origin in (list, typing.List):
        min_size = next((m.min_length for m in metadata if hasattr(m, "min_length")), 0)
        return st.lists(for_annotation(args[0]), min_size=min_size or 0, max_size=3)
    if origin in (dict, typing.Dict):
        return st.dictionaries(st.text(max_size=6), for_annotation(args[1]), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return st.sampled_from(list(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_instances(annotation)
    raise NotImplementedError(f"no strategy for {annotation!r}")


def _for_field(model: type[BaseModel], name: str, field: FieldInfo) -> st.SearchStrategy[Any]:
    override = _FIELD_OVERRIDES.get(f"{name}@{model.__name__}", _FIELD_OVERRIDES.get(name))
    if override is not None:
        strategy = override
        if not field.is_required() and field.default is None:
            strategy = st.none() | strategy
        return strategy
    return for_annotation(field.annotation, list(field.metadata))


def model_instances(model: type[BaseModel]) -> st.SearchStrategy[Any]:
    """Any valid instance of ``model``, optional fields both set and unset. Field values a
    model validator refuses together (a binary part with none of id, url or data) are drawn
    again: the strategy is per field, the rule is across fields."""

    def build(values: dict[str, Any]) -> Any:
        try:
            return model(**values)
        except ValidationError:
            return None

    return st.deferred(
        lambda: (
            st.fixed_dictionaries(
                {name: _for_field(model, name, field) for name, field in model.model_fields.items()}
            )
            .map(build)
            .filter(lambda instance: instance is not None)
        )
    )


# -- lone UTF-16 surrogates ----------------------------------------------------------------------
# ``JSON.stringify`` writes a string cut inside an emoji as ``"\ud83d"``; ``json.loads`` reads it
# as a str holding that one code point. Hypothesis's text() never draws surrogates (category Cs).
lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
_MEMBER_KEYS = frozenset({"type", "op", "role", "subtype", "status"})


@st.composite
def with_lone_surrogates(draw: st.DrawFn, value: Any) -> Any:
    """``value`` (wire JSON) with lone surrogates put into some of its string values."""

    def cut(text: str) -> str:
        if not draw(st.booleans()):
            return text
        at = draw(st.integers(0, len(text)))
        return text[:at] + draw(lone_surrogates) + text[at:]

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return cut(item)
        if isinstance(item, list):
            return [walk(child) for child in item]
        if isinstance(item, dict):
            # Keys stay (they name fields), and so do the values that name a union member.
            return {k: v if k in _MEMBER_KEYS else walk(v) for k, v in item.items()}
        return item

    return walk(value)


def as_json_text(value: Any, *, ascii_only: bool) -> str:
    """``value`` as JSON text as a JavaScript or Python peer writes it: every non-ASCII character
    escaped, or only the surrogates (``JSON.stringify`` escapes lone ones, writes the rest)."""
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    return re.sub("[\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def same_json(left: Any, right: Any) -> bool:
    """JSON equality that, unlike ==, tells True from 1 (numbers compare by value, so
    -0.0 == 0.0)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same_json, left, right))
    return type(left) is type(right) and left == right
