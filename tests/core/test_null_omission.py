"""The cross-SDK null-omission contract (``shared/fixtures/null-omission.json``), on every path,
plus a sweep over every wire type: no unset optional is ever written as null."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Optional

import pytest
from pydantic import BaseModel, TypeAdapter

import ag_ui.core
from ag_ui.core import AGUIModel, Event, RunStartedEvent, parse_event
from ag_ui.encoder import EventEncoder


def _cases(shared_dir: Path) -> list[dict[str, Any]]:
    fixture = json.loads((shared_dir / "fixtures" / "null-omission.json").read_text("utf-8"))
    return [case for case in fixture["stream"] if "python" in case["producedBy"]]


def test_fixture_has_all_cases(shared_dir: Path) -> None:
    assert len(_cases(shared_dir)) == 28


def test_every_case_through_the_encoder(shared_dir: Path) -> None:
    encoder = EventEncoder()
    for case in _cases(shared_dir):
        frame = encoder.encode(parse_event(case["input"]))
        assert json.loads(frame[len("data: ") :]) == case["expected"], case["name"]


def test_every_case_through_model_dump_json_dump_and_type_adapter(shared_dir: Path) -> None:
    adapter: TypeAdapter[Event] = TypeAdapter(Event)
    for case in _cases(shared_dir):
        event = parse_event(json.dumps(case["input"]))
        assert json.loads(event.model_dump_json(by_alias=True)) == case["expected"], case["name"]
        assert event.model_dump(by_alias=True, mode="json") == case["expected"], case["name"]
        assert json.loads(adapter.dump_json(event, by_alias=True)) == case["expected"]


def test_nested_models_omit_too() -> None:
    class Envelope(BaseModel):
        event: RunStartedEvent

    inner = RunStartedEvent(thread_id="t", run_id="r")
    assert Envelope(event=inner).model_dump(by_alias=True) == {
        "event": {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    }


def test_user_subclasses_keep_the_rule() -> None:
    class TracedStart(RunStartedEvent):
        trace_id: Optional[str] = None
        note: Any = "kept"

    event = TracedStart(thread_id="t", run_id="r")
    assert json.loads(EventEncoder().encode(event)[6:]) == {
        "type": "RUN_STARTED",
        "threadId": "t",
        "runId": "r",
        "note": "kept",
    }
    assert TracedStart(thread_id="t", run_id="r", trace_id="x").model_dump()["trace_id"] == "x"


def _wire_models() -> list[type[AGUIModel]]:
    return [
        obj
        for _, obj in inspect.getmembers(ag_ui.core, inspect.isclass)
        if issubclass(obj, AGUIModel) and obj is not AGUIModel
    ]


@pytest.mark.parametrize("cls", _wire_models(), ids=lambda cls: cls.__name__)
def test_sweep_no_unset_optional_is_written_as_null(cls: type[AGUIModel]) -> None:
    optional = [
        name
        for name, field in cls.model_fields.items()
        if not field.is_required() and field.default is None
    ]
    # Every optional field set to None, explicitly: it must vanish on both naming paths.
    fields = dict.fromkeys(optional)
    instance = cls.model_construct(**fields)
    for by_alias in (True, False):
        dumped = instance.model_dump(by_alias=by_alias)
        for name in optional:
            key = cls.model_fields[name].alias if by_alias else name
            assert (key or name) not in dumped, f"{cls.__name__}.{name}"
