"""``ag_ui.verify.verify_a2ui``: each ``a2ui.*`` rule on a stream that breaks it and on its
fixed twin. The cases restate the A2UI spec's facts (v0.9 and v0.10 ``server_to_client``
schemas: one operation key beside ``version``, no other field; createSurface needs surfaceId
and catalogId; updateComponents a non-empty list; order per surface) and the middleware's
contract (``activityType``, ``a2ui_operations``, the lifecycle statuses)."""

from __future__ import annotations

from typing import Any, Optional

import pytest

from ag_ui.core import ActivitySnapshotEvent, TextMessageStartEvent
from ag_ui.verify import A2UIVerifier, verify_a2ui

CATALOG = "https://a2ui.org/specification/v0_9/basic_catalog.json"


def snap(
    operations: Any = None,
    *,
    content: Optional[dict[str, Any]] = None,
    message_id: str = "a2ui-surface-call-1",
    activity_type: str = "a2ui-surface",
    replace: Optional[bool] = True,
) -> ActivitySnapshotEvent:
    return ActivitySnapshotEvent(
        message_id=message_id,
        activity_type=activity_type,
        content=content if content is not None else {"a2ui_operations": operations},
        replace=replace,
    )


def create(surface: str = "s", version: str = "v0.9") -> dict[str, Any]:
    return {"version": version, "createSurface": {"surfaceId": surface, "catalogId": CATALOG}}


def components(*items: dict[str, Any], surface: str = "s") -> dict[str, Any]:
    return {
        "version": "v0.9",
        "updateComponents": {"surfaceId": surface, "components": list(items)},
    }


def data(value: Any, path: Optional[str] = None, surface: str = "s") -> dict[str, Any]:
    body: dict[str, Any] = {"surfaceId": surface, "value": value}
    if path is not None:
        body["path"] = path
    return {"version": "v0.9", "updateDataModel": body}


def delete(surface: str = "s") -> dict[str, Any]:
    return {"version": "v0.9", "deleteSurface": {"surfaceId": surface}}


ROOT = {"id": "root", "component": "Column", "children": ["title"]}
TITLE = {"id": "title", "component": "Text", "text": {"path": "/title"}}


def rules(*events: ActivitySnapshotEvent) -> list[tuple[str, str]]:
    return [(finding.rule, finding.severity) for finding in verify_a2ui(events)]


# (case, events, expected (rule, severity) list); each bad case has a good twin before it.
CASES: list[tuple[str, list[ActivitySnapshotEvent], list[tuple[str, str]]]] = [
    ("a whole surface", [snap([create(), components(ROOT, TITLE), data({"title": "Hi"})])], []),
    ("v0.10 envelopes", [snap([create(version="v0.10")])], []),
    (
        "lifecycle then paint",
        [
            snap(content={"status": "building"}),
            snap(content={"status": "retrying", "attempt": 2}),
            snap([create()]),
        ],
        [],
    ),
    ("a failed run", [snap(content={"status": "failed", "error": "gave up"})], []),
    ("an unknown status", [snap(content={"status": "done"})], [("a2ui.status", "error")]),
    (
        "a status after paint",
        [snap([create()]), snap(content={"status": "building"})],
        [("a2ui.status-after-paint", "warning")],
    ),
    (
        "no version",
        [snap([{"createSurface": {"surfaceId": "s", "catalogId": CATALOG}}])],
        [("a2ui.version", "error")],
    ),
    ("an unknown version", [snap([create(version="v0.8")])], [("a2ui.version", "error")]),
    (
        "two operations in one envelope",
        [snap([{**create(), "deleteSurface": {"surfaceId": "s"}}])],
        [("a2ui.one-operation", "error")],
    ),
    ("no operation", [snap([{"version": "v0.9"}])], [("a2ui.one-operation", "error")]),
    (
        "v0.8's surfaceUpdate",
        [snap([{"version": "v0.9", "surfaceUpdate": {"surfaceId": "s"}}])],
        [("a2ui.one-operation", "error")],
    ),
    ("an extra envelope field", [snap([{**create(), "id": 1}])], [("a2ui.envelope", "error")]),
    (
        "createSurface without catalogId",
        [snap([{"version": "v0.9", "createSurface": {"surfaceId": "s"}}])],
        [("a2ui.envelope", "error")],
    ),
    (
        "an unknown createSurface field",
        [
            snap(
                [
                    {
                        "version": "v0.9",
                        "createSurface": {
                            "surfaceId": "s",
                            "catalogId": CATALOG,
                            "attachDataModel": True,
                        },
                    }
                ]
            )
        ],
        [("a2ui.envelope", "error")],
    ),
    ("empty components", [snap([create(), components()])], [("a2ui.envelope", "error")]),
    ("an envelope that is not an object", [snap([create(), "oops"])], [("a2ui.envelope", "error")]),
    ("update before create", [snap([components(ROOT), create()])], [("a2ui.order", "error")]),
    ("data before create", [snap([data({"a": 1})])], [("a2ui.order", "error")]),
    ("create twice", [snap([create(), create()])], [("a2ui.order", "error")]),
    ("delete then create again", [snap([create(), delete(), create()])], []),
    (
        "update after delete",
        [snap([create(), delete(), data({"a": 1})])],
        [("a2ui.order", "error")],
    ),
    (
        "the nested v0.8 component form",
        [snap([create(), components({"id": "root", "component": {"Text": {"text": "x"}}})])],
        [("a2ui.component", "error")],
    ),
    (
        "a duplicate component id",
        [snap([create(), components(ROOT, TITLE, {**TITLE, "text": "x"})])],
        [("a2ui.component-id", "error")],
    ),
    ("a missing child", [snap([create(), components(ROOT)])], [("a2ui.reference", "error")]),
    (
        "a missing Card child",
        [snap([create(), components({"id": "root", "component": "Card", "child": "body"})])],
        [("a2ui.reference", "error")],
    ),
    (
        "a missing tab child",
        [
            snap(
                [
                    create(),
                    components(
                        {
                            "id": "root",
                            "component": "Tabs",
                            "tabItems": [{"title": "A", "child": "a"}],
                        }
                    ),
                ]
            )
        ],
        [("a2ui.reference", "error")],
    ),
    (
        "a missing template",
        [
            snap(
                [
                    create(),
                    components(
                        {
                            "id": "root",
                            "component": "List",
                            "children": {"componentId": "row", "path": "/items"},
                        }
                    ),
                ]
            )
        ],
        [("a2ui.reference", "error")],
    ),
    (
        "a template present",
        [
            snap(
                [
                    create(),
                    components(
                        {
                            "id": "root",
                            "component": "List",
                            "children": {"componentId": "row", "path": "/items"},
                        },
                        {"id": "row", "component": "Text", "text": {"path": "name"}},
                    ),
                    data({"items": []}),
                ]
            )
        ],
        [],
    ),
    ("no root", [snap([create(), components(TITLE)])], [("a2ui.root", "warning")]),
    (
        "a binding the data model lacks",
        [snap([create(), components(ROOT, TITLE), data({"name": "x"})])],
        [("a2ui.binding", "warning")],
    ),
    (
        "a binding set by a path update",
        [snap([create(), components(ROOT, TITLE), data({}), data("Hi", path="/title")])],
        [],
    ),
    (
        "a binding whose key was removed",
        [
            snap(
                [
                    create(),
                    components(ROOT, TITLE),
                    data({"title": "x"}),
                    {"version": "v0.9", "updateDataModel": {"surfaceId": "s", "path": "/title"}},
                ]
            )
        ],
        [("a2ui.binding", "warning")],
    ),
    (
        "an action context binding",
        [
            snap(
                [
                    create(),
                    components(
                        {
                            "id": "root",
                            "component": "Button",
                            "child": "t",
                            "action": {
                                "event": {"name": "go", "context": {"who": {"path": "/form/name"}}}
                            },
                        },
                        {"id": "t", "component": "Text", "text": "Go"},
                    ),
                    data({"form": {}}),
                ]
            )
        ],
        [("a2ui.binding", "warning")],
    ),
    (
        "v0.10 callFunction",
        [
            snap(
                [
                    {
                        "version": "v0.10",
                        "callFunction": {
                            "call": "required",
                            "args": {"value": "x"},
                            "returnType": "boolean",
                            "callableFrom": "clientOrRemote",
                        },
                        "functionCallId": "f1",
                        "wantResponse": True,
                    }
                ]
            )
        ],
        [],
    ),
    (
        "callFunction without functionCallId",
        [
            snap(
                [
                    {
                        "version": "v0.10",
                        "callFunction": {
                            "call": "required",
                            "args": {"value": "x"},
                            "returnType": "boolean",
                            "callableFrom": "clientOrRemote",
                        },
                    }
                ]
            )
        ],
        [("a2ui.envelope", "error")],
    ),
    (
        "callFunction without callableFrom",
        [
            snap(
                [
                    {
                        "version": "v0.10",
                        "callFunction": {"call": "required", "returnType": "boolean"},
                        "functionCallId": "f1",
                    }
                ]
            )
        ],
        [("a2ui.envelope", "error")],
    ),
    (
        "callFunction in v0.9",
        [
            snap(
                [
                    {
                        "version": "v0.9",
                        "callFunction": {
                            "call": "required",
                            "args": {"value": "x"},
                            "returnType": "boolean",
                            "callableFrom": "clientOrRemote",
                        },
                        "functionCallId": "f1",
                    }
                ]
            )
        ],
        [("a2ui.version", "error")],
    ),
    (
        "v0.10 actionResponse",
        [snap([{"version": "v0.10", "actionResponse": {"value": 1}, "actionId": "a1"}])],
        [],
    ),
    (
        "actionResponse with an unknown field",
        [snap([{"version": "v0.10", "actionResponse": {"result": 1}, "actionId": "a1"}])],
        [("a2ui.envelope", "error")],
    ),
    (
        "drift: content.operations",
        [snap(content={"operations": [create()]})],
        [("a2ui.content-operations", "error")],
    ),
    (
        "drift: a wrong activityType",
        [snap([create()], activity_type="a2ui")],
        [("a2ui.activity-type", "warning")],
    ),
    (
        "a wrong activityType on an a2ui message id",
        [snap(content={"status": "building"}, activity_type="surface")],
        [("a2ui.activity-type", "warning")],
    ),
    ("content neither", [snap(content={"surface": {}})], [("a2ui.content", "error")]),
    ("replace false", [snap([create()], replace=False)], [("a2ui.replace", "warning")]),
    (
        "another activity is not A2UI",
        [snap(content={"progress": 1}, message_id="m1", activity_type="progress")],
        [],
    ),
]


@pytest.mark.parametrize(("case", "events", "expected"), CASES, ids=[case[0] for case in CASES])
def test_each_rule(
    case: str, events: list[ActivitySnapshotEvent], expected: list[tuple[str, str]]
) -> None:
    assert rules(*events) == expected


def test_a_replacing_snapshot_restates_its_surfaces_and_others_persist() -> None:
    first = snap([create("a"), components(ROOT, TITLE, surface="a")], message_id="a2ui-surface-c1")
    # The same message again (the streamed paint): createSurface again is not a duplicate.
    again = snap(
        [create("a"), components(ROOT, TITLE, surface="a"), data({"title": "t"}, surface="a")],
        message_id="a2ui-surface-c1",
    )
    # A later tool call updates surface "a" without creating it: legal.
    later = snap([data("new", path="/title", surface="a")], message_id="a2ui-surface-c2")
    assert rules(first, again, later) == []
    # A second message creating "a" while the first still holds it is an order error.
    clash = snap([create("a")], message_id="a2ui-surface-c3")
    assert rules(first, clash) == [("a2ui.order", "error")]


def test_findings_say_where_and_what() -> None:
    verifier = A2UIVerifier()
    assert verifier.check(TextMessageStartEvent(message_id="m")) == []
    (finding,) = verifier.check(snap([create(), components(ROOT)]))
    assert finding.message_id == "a2ui-surface-call-1"
    assert finding.surface_id == "s"
    assert "'title'" in finding.message
    assert str(finding).startswith("error [a2ui.reference]")
