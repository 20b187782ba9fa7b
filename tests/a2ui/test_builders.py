"""The A2UI envelope builders and ``Surface``: the wire shapes of the spec and the middleware."""

from __future__ import annotations

import json

import pytest

from ag_ui.a2ui import (
    ACTIVITY_TYPE,
    BASIC_CATALOG_V0_9,
    Surface,
    component,
    create_surface,
    delete_surface,
    operations_result,
    surface_id_of,
    surface_message_id,
    update_components,
    update_data_model,
)
from ag_ui.core import EventType
from ag_ui.verify import verify_a2ui


def test_each_builder_makes_one_envelope_with_version_and_one_operation() -> None:
    assert create_surface("s") == {
        "version": "v0.9",
        "createSurface": {"surfaceId": "s", "catalogId": BASIC_CATALOG_V0_9},
    }
    assert create_surface(
        "s", "my.org:cards", theme={"primaryColor": "#f00"}, send_data_model=True, version="v0.10"
    ) == {
        "version": "v0.10",
        "createSurface": {
            "surfaceId": "s",
            "catalogId": "my.org:cards",
            "theme": {"primaryColor": "#f00"},
            "sendDataModel": True,
        },
    }
    root = component("root", "Text", text={"path": "/name"})
    assert update_components("s", [root]) == {
        "version": "v0.9",
        "updateComponents": {"surfaceId": "s", "components": [root]},
    }
    assert update_data_model("s", {"name": "Ada"}) == {
        "version": "v0.9",
        "updateDataModel": {"surfaceId": "s", "value": {"name": "Ada"}},
    }
    assert update_data_model("s", path="/name") == {  # no value: remove the key
        "version": "v0.9",
        "updateDataModel": {"surfaceId": "s", "path": "/name"},
    }
    assert update_data_model("s", None, path="/x")["updateDataModel"]["value"] is None
    assert delete_surface("s", version="v0.10") == {
        "version": "v0.10",
        "deleteSurface": {"surfaceId": "s"},
    }
    assert surface_id_of(delete_surface("s")) == "s"
    assert surface_id_of({"version": "v0.9"}) is None


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: create_surface("s", version="v1.7"), "v1.7"),  # type: ignore[arg-type]
        (lambda: create_surface(""), "surface_id"),
        (lambda: update_components("s", []), "at least one component"),
        (lambda: update_components("s", [{"id": "root"}]), "'root''s type"),
        (lambda: update_data_model("s", 1, path="name"), "starts with '/'"),
        (lambda: component("a", "Text", id="b"), "may not be named"),
    ],
)
def test_a_malformed_envelope_is_refused_with_what_is_wrong(call: object, words: str) -> None:
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        call()  # type: ignore[operator]


def test_operations_result_is_the_tool_result_a_renderer_paints() -> None:
    envelopes = [
        create_surface("s"),
        update_components("s", [component("root", "Column", children=[])]),
    ]
    assert json.loads(json.dumps(operations_result(envelopes))) == {"a2ui_operations": envelopes}


def test_message_ids_follow_the_middleware() -> None:
    assert surface_message_id("call-1") == "a2ui-surface-call-1"
    assert surface_message_id("call-1", "cart") == "a2ui-surface-cart-call-1"
    assert Surface("cart", "call-1", shared_call=True).message_id == "a2ui-surface-cart-call-1"


def test_a_surface_yields_lifecycle_statuses_then_every_operation_so_far() -> None:
    surface = Surface("form", "call-7")
    events = [
        surface.building(progress_tokens=40),
        surface.retrying(2, 3, errors=["root missing"]),
        surface.components([component("root", "Text", text={"path": "/greeting"})]),
        surface.data({"greeting": "hello"}),
        surface.data("bye", path="/greeting"),
        surface.delete(),
    ]
    for event in events:
        assert event.type is EventType.ACTIVITY_SNAPSHOT
        assert event.activity_type == ACTIVITY_TYPE == "a2ui-surface"
        assert event.message_id == "a2ui-surface-call-7"
        assert event.replace is True
    assert events[0].content == {"status": "building", "progressTokens": 40}
    assert events[1].content == {
        "status": "retrying",
        "attempt": 2,
        "maxAttempts": 3,
        "errors": ["root missing"],
    }
    painted = [event.content["a2ui_operations"] for event in events[2:]]
    assert [len(operations) for operations in painted] == [2, 3, 4, 5]
    assert [next(iter(set(op) - {"version"})) for op in painted[-1]] == [
        "createSurface",
        "updateComponents",
        "updateDataModel",
        "updateDataModel",
        "deleteSurface",
    ]
    assert verify_a2ui(events) == []
    with pytest.raises(RuntimeError, match="was deleted"):
        surface.data({"late": True})


def test_failed_and_out_of_range_retries() -> None:
    surface = Surface("s", "c")
    assert surface.failed("no valid UI", attempts=[{"errors": ["x"]}] * 3).content == {
        "status": "failed",
        "error": "no valid UI",
        "attempts": [{"errors": ["x"]}] * 3,
        "maxAttempts": 3,
    }
    assert surface.failed("gave up").content["maxAttempts"] == 3  # the toolkit's default cap
    with pytest.raises(ValueError, match=r"attempt 4 is not within 1\.\.3"):
        surface.retrying(4, 3)


def test_a_v0_10_surface_writes_v0_10_everywhere() -> None:
    surface = Surface("s", "c", version="v0.10", catalog_id="example.com:cards")
    event = surface.components(
        [component("root", "Card", child="t"), component("t", "Text", text="hi")]
    )
    assert {op["version"] for op in event.content["a2ui_operations"]} == {"v0.10"}
    assert event.content["a2ui_operations"][0]["createSurface"]["catalogId"] == "example.com:cards"
    assert verify_a2ui([event]) == []
