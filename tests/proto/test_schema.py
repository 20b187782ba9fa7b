"""The ``.proto`` sources match PROTOCOL.md §4.4 and the committed generated code is current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from ag_ui.proto._generated import events_pb2, patch_pb2, types_pb2

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "src" / "ag_ui" / "proto" / "_generated"
_VERSION_LINE = re.compile(r"^# Protobuf Python Version: (.*)$", re.MULTILINE)
_SCALAR_NAMES = {
    FieldDescriptor.TYPE_STRING: "string",
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_INT64: "int64",
}


def _load_generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "generate_proto", REPO / "scripts" / "generate_proto.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_code_is_current(tmp_path: Path) -> None:
    written = _load_generator().generate(tmp_path)
    assert sorted(p.name for p in written) == sorted(
        p.name for p in GENERATED.iterdir() if p.is_file()
    )
    for fresh in written:
        committed = (GENERATED / fresh.name).read_text()
        new = fresh.read_text()
        if fresh.suffix == ".py" and _VERSION_LINE.findall(committed) != _VERSION_LINE.findall(new):
            # Another protoc version words the code differently; the schema must still agree.
            pattern = re.compile(r"AddSerializedFile\((b'.*?')\)", re.DOTALL)
            assert pattern.findall(new) == pattern.findall(committed), (
                f"{fresh.name} is stale: run scripts/generate_proto.py"
            )
        else:
            assert new == committed, f"{fresh.name} is stale: run scripts/generate_proto.py"


def _protocol_tables(shared_dir: Path) -> dict[str, dict[int, tuple[str, str, str]]]:
    """{message: {number: (field, type, label)}} from the field tables of PROTOCOL.md §4.4."""
    text = (shared_dir / "PROTOCOL.md").read_text()
    section = text[text.index("### 4.4") : text.index("### 4.5")]
    tables: dict[str, dict[int, tuple[str, str, str]]] = {}
    current = ""
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[1].isdigit():
            continue
        if cells[0]:
            current = cells[0].strip("*")
        tables.setdefault(current, {})[int(cells[1])] = (
            cells[2].strip("`"),
            cells[3],
            cells[4],
        )
    return tables


def _describe(field: FieldDescriptor) -> tuple[str, str, str]:
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        kind = field.message_type.full_name.removeprefix("ag_ui.")
    elif field.type == FieldDescriptor.TYPE_ENUM:
        kind = field.enum_type.name
    else:
        kind = _SCALAR_NAMES[field.type]
    oneof = field.containing_oneof
    if field.is_repeated:
        label = "repeated"
    elif oneof is not None and not oneof.name.startswith("_"):
        label = f"oneof `{oneof.name}`"
    elif field.type == FieldDescriptor.TYPE_MESSAGE:
        label = "message"
    else:
        label = "optional" if field.has_presence else "(implicit)"
    return field.name, kind, label


def _all_messages() -> dict[str, Any]:
    messages = {}
    for module in (events_pb2, patch_pb2, types_pb2):
        for name, descriptor in module.DESCRIPTOR.message_types_by_name.items():
            messages[name] = descriptor
            for nested in descriptor.nested_types:
                messages[f"{name}.{nested.name}"] = nested
    return messages


# Protocol 1.1 adds these slots (upstream spec/1.1/proto-freeze.txt); PROTOCOL.md tables 1.0.
_ADDED_IN_1_1 = {
    "Message": {14: ("encrypted_value_type", "string", "optional")},
    "ToolCall": {6: ("encrypted_value_type", "string", "optional")},
    "ReasoningEncryptedValueEvent": {6: ("encrypted_value_type", "string", "optional")},
}


def test_every_message_matches_protocol_md(shared_dir: Path) -> None:
    tables = _protocol_tables(shared_dir)
    for name, added in _ADDED_IN_1_1.items():
        assert not set(added) & set(tables[name]), f"{name}: a 1.1 slot is taken in 1.0"
        tables[name] = {**tables[name], **added}
    messages = _all_messages()
    assert sorted(tables) == sorted(messages)
    for name, descriptor in messages.items():
        ours = {field.number: _describe(field) for field in descriptor.fields}
        assert ours == tables[name], name


@pytest.mark.parametrize(
    ("enum", "expected"),
    [
        (patch_pb2.JsonPatchOperationType, ["ADD", "REMOVE", "REPLACE", "MOVE", "COPY", "TEST"]),
        (
            events_pb2.EventType,
            [
                "TEXT_MESSAGE_START",
                "TEXT_MESSAGE_CONTENT",
                "TEXT_MESSAGE_END",
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "STATE_SNAPSHOT",
                "STATE_DELTA",
                "MESSAGES_SNAPSHOT",
                "RAW",
                "CUSTOM",
                "RUN_STARTED",
                "RUN_FINISHED",
                "RUN_ERROR",
                "STEP_STARTED",
                "STEP_FINISHED",
                "SUBAGENT_STARTED",
                "SUBAGENT_FINISHED",
                "SUBAGENT_ERROR",
                "TEXT_MESSAGE_CHUNK",
                "TOOL_CALL_CHUNK",
                "TOOL_CALL_RESULT",
                "ACTIVITY_SNAPSHOT",
                "ACTIVITY_DELTA",
                "REASONING_START",
                "REASONING_MESSAGE_START",
                "REASONING_MESSAGE_CONTENT",
                "REASONING_MESSAGE_END",
                "REASONING_MESSAGE_CHUNK",
                "REASONING_END",
                "REASONING_ENCRYPTED_VALUE",
            ],
        ),
    ],
)
def test_enum_numbers(enum: Any, expected: list[str]) -> None:
    assert [enum.Name(number) for number in range(len(expected))] == expected
    assert len(enum.keys()) == len(expected)


def test_package_and_files() -> None:
    assert {m.DESCRIPTOR.name for m in (events_pb2, patch_pb2, types_pb2)} == {
        "events.proto",
        "patch.proto",
        "types.proto",
    }
    assert {m.DESCRIPTOR.package for m in (events_pb2, patch_pb2, types_pb2)} == {"ag_ui"}
