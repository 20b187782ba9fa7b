"""How ``AGUIModel`` classes are built: once each, with the omission rule already attached.

The rule used to be attached after pydantic built a class, which cost a rebuild of every model
at import. These tests pin the single build (without timing anything) and the class-body
spellings that the pre-build pass must get exactly right.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Annotated, Any, ClassVar, Optional

import pytest
from pydantic import BaseModel, Field

from ag_ui.core import AGUIModel, RunStartedEvent
from ag_ui.core._omission import omit_if_none

# Counts, in a fresh interpreter, every completed build of a model class during the import
# (``__pydantic_on_complete__``, a public pydantic hook, runs once per first build) and every
# ``model_rebuild`` call (the only way a built class gets built again).
_COUNT_BUILDS = """
import json
from collections import Counter
from pydantic import BaseModel

built, rebuilt = Counter(), Counter()
BaseModel.__pydantic_on_complete__ = classmethod(lambda cls: built.update([cls.__qualname__]))
_rebuild = BaseModel.model_rebuild.__func__

def counting_rebuild(cls, *args, **kwargs):
    rebuilt.update([cls.__qualname__])
    return _rebuild(cls, *args, **kwargs)

BaseModel.model_rebuild = classmethod(counting_rebuild)
import ag_ui.core
import ag_ui.core.legacy_events
print(json.dumps({"built": built, "rebuilt": rebuilt}))
"""


def test_each_model_is_built_once_at_import() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _COUNT_BUILDS], capture_output=True, text=True, check=True
    )
    counts = json.loads(out.stdout)
    assert counts["rebuilt"] == {}
    assert len(counts["built"]) > 80  # the hook really ran: every model of ag_ui.core
    assert {name: n for name, n in counts["built"].items() if n != 1} == {}


def _rebuilds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    rebuild = BaseModel.model_rebuild.__func__  # type: ignore[attr-defined]

    def counting_rebuild(cls: type[BaseModel], *args: Any, **kwargs: Any) -> Any:
        calls.append(cls.__name__)
        return rebuild(cls, *args, **kwargs)

    monkeypatch.setattr(BaseModel, "model_rebuild", classmethod(counting_rebuild))
    return calls


def test_a_class_body_none_default_needs_no_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    rebuilds = _rebuilds(monkeypatch)

    class Traced(RunStartedEvent):
        trace_id: Optional[str] = None

    assert rebuilds == []
    assert Traced.model_fields["trace_id"].exclude_if is omit_if_none
    assert "traceId" not in Traced(thread_id="t", run_id="r").model_dump(by_alias=True)


def test_other_none_default_spellings_still_get_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    rebuilds = _rebuilds(monkeypatch)

    class Spelled(AGUIModel):
        assigned: Optional[int] = Field(None, description="a Field() default")
        annotated: Annotated[Optional[int], Field(default=None)]

    assert rebuilds == ["Spelled"]  # the fallback: attached after the build, as before
    assert Spelled().model_dump() == {}
    assert Spelled(assigned=1, annotated=2).model_dump() == {"assigned": 1, "annotated": 2}


def test_class_variables_private_attributes_and_factories_are_left_alone() -> None:
    class Mixed(AGUIModel):
        shared: ClassVar[Optional[int]] = None
        _private: Optional[int] = None
        made: Optional[int] = Field(default_factory=lambda: None)
        plain: Optional[int] = None

    assert Mixed.shared is None
    assert "shared" not in Mixed.model_fields
    assert set(Mixed.__private_attributes__) == {"_private"}
    assert Mixed().model_dump() == {"made": None}
    assert Mixed()._private is None


def test_event_type_literals_serialize_through_the_str_path() -> None:
    # Guards the SSE encode speed (the enum path was 1.1 µs of a 1.7 µs event) via
    # pydantic-core's debug representation of the compiled serializer.
    # The field's entry reads ``key: "type"`` (recent pydantic-core) or ``"type": SerField``.
    serializer = repr(RunStartedEvent.__pydantic_serializer__)
    start = re.search(r'key: "type"|"type": SerField', serializer)
    assert start is not None
    type_field = serializer[start.end() :]
    assert type_field.index("Str(") < type_field.index("SerField")


def test_the_shared_none_default_is_copied_never_changed() -> None:
    # ``_omission`` assigns one ``Field`` instance to every ``name: T = None``; that is only
    # sound while pydantic copies an assigned ``Field`` rather than adopting or mutating it.
    from ag_ui.core._omission import _NONE_OMITTED

    class One(AGUIModel):
        a: Optional[int] = None
        b: Optional[str] = None

    one_a, one_b = One.model_fields["a"], One.model_fields["b"]
    fields = (one_a, one_b, RunStartedEvent.model_fields["input"])
    assert all(field is not _NONE_OMITTED for field in fields)
    assert one_a is not one_b
    assert (one_a.annotation, one_b.annotation) == (Optional[int], Optional[str])
    assert repr(_NONE_OMITTED) == repr(Field(default=None, exclude_if=omit_if_none))
