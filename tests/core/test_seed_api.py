"""The seed document (``shared/spec/seed-types.md``) is the API contract: check every class,
field, default and import it shows against ``ag_ui.core``, reading the document itself."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import ag_ui.core
from ag_ui.core import RunAgentInput

# Protocol 1.0 made these optional; the seed types are kept, with 1.0's absence as the default.
RELAXED_TO_OPTIONAL = {
    ("RunAgentInput", "state"): None,
    ("RunAgentInput", "tools"): [],
    ("RunAgentInput", "context"): [],
    ("RunAgentInput", "forwarded_props"): None,
    ("Tool", "parameters"): None,
}

_CLASS = re.compile(r"^class (\w+)\((\w+)\):$")
_FIELD = re.compile(r"^    (\w+): ([^=#]+?)(?: = (.+?))?\s*(?:#.*)?$")


def _seed_classes(seed: str) -> dict[str, dict[str, str | None]]:
    classes: dict[str, dict[str, str | None]] = {}
    current: dict[str, str | None] | None = None
    for line in seed.splitlines():
        if match := _CLASS.match(line):
            current = classes.setdefault(match.group(1), {})
        elif current is not None and (match := _FIELD.match(line)):
            current[match.group(1)] = match.group(3)
        elif not line.startswith("    "):
            current = None
    return classes


@pytest.fixture(scope="module")
def seed(shared_dir: Path) -> str:
    return (shared_dir / "spec" / "seed-types.md").read_text(encoding="utf-8")


def test_every_documented_import_works(seed: str) -> None:
    names = re.findall(r"from ag_ui\.core import (\w+)", seed)
    assert len(names) >= 15
    for name in names:
        assert hasattr(ag_ui.core, name), name


def test_every_documented_class_field_and_default(seed: str) -> None:
    classes = _seed_classes(seed)
    assert len(classes) >= 20
    for class_name, fields in classes.items():
        cls: Any = getattr(ag_ui.core, class_name)
        for field_name, default in fields.items():
            assert field_name in cls.model_fields, f"{class_name}.{field_name}"
            info = cls.model_fields[field_name]
            if default is not None:
                assert repr(info.default) == default.replace("'", '"').replace('"', "'"), (
                    f"{class_name}.{field_name}"
                )
            elif (class_name, field_name) in RELAXED_TO_OPTIONAL:
                expected = RELAXED_TO_OPTIONAL[(class_name, field_name)]
                assert info.get_default(call_default_factory=True) == expected
            elif info.is_required():
                continue
            else:
                # A discriminator literal gets its only value as default (pure convenience).
                assert field_name in ("role", "type"), f"{class_name}.{field_name}"


def test_documented_union_and_alias_names() -> None:
    from ag_ui.core import (
        InputContentDataSource,
        InputContentUrlSource,
        Message,
        Role,
        State,
        TextInputContent,
        TextPart,
    )

    assert typing_args(Role) == (
        "developer",
        "system",
        "assistant",
        "user",
        "tool",
        "activity",
        "reasoning",
    )
    assert State is Any
    assert TextInputContent is TextPart
    assert InputContentDataSource is ag_ui.core.DataSource
    assert InputContentUrlSource is ag_ui.core.UrlSource
    roles = {cls.model_fields["role"].default for cls in typing_args(typing_args(Message)[0])}
    assert roles == set(typing_args(Role))


def typing_args(tp: Any) -> tuple[Any, ...]:
    import typing

    return typing.get_args(tp)


def test_run_agent_input_as_the_seed_builds_it() -> None:
    run_input = RunAgentInput(
        thread_id="t",
        run_id="r",
        state={"n": 1},
        messages=[{"id": "1", "role": "user", "content": "hi"}],
        tools=[{"name": "search", "description": "d", "parameters": {"type": "object"}}],
        context=[{"description": "locale", "value": "en"}],
        forwarded_props={"k": None},
    )
    assert run_input.model_dump(by_alias=True) == {
        "threadId": "t",
        "runId": "r",
        "state": {"n": 1},
        "messages": [{"id": "1", "role": "user", "content": "hi"}],
        "tools": [{"name": "search", "description": "d", "parameters": {"type": "object"}}],
        "context": [{"description": "locale", "value": "en"}],
        "forwardedProps": {"k": None},
    }
