"""A2UI surfaces on the wire (``ACTIVITY_SNAPSHOT`` with ``activityType`` ``"a2ui-surface"``):
the checks whose silence shows a chip instead of a surface. Rule ids ``a2ui.*``
(docs/verify.md); ``error`` breaks the A2UI spec or the renderer's contract, ``warning`` is
legal but likely wrong (drift, or data that may still arrive).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal, Optional

from ag_ui.core.events import ActivitySnapshotEvent

__all__ = ["A2UIFinding", "A2UIVerifier", "verify_a2ui"]

ACTIVITY_TYPE: Final = "a2ui-surface"
_OPERATIONS_KEY: Final = "a2ui_operations"
_VERSIONS: Final = frozenset({"v0.9", "v0.10"})
_STATUSES: Final = frozenset({"building", "retrying", "failed"})
# Per operation: the body's required and allowed fields (the spec's JSON Schema, v0.9 = v0.10).
_FIELDS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "createSurface": (
        frozenset({"surfaceId", "catalogId"}),
        frozenset({"surfaceId", "catalogId", "theme", "sendDataModel"}),
    ),
    "updateComponents": (
        frozenset({"surfaceId", "components"}),
        frozenset({"surfaceId", "components"}),
    ),
    "updateDataModel": (frozenset({"surfaceId"}), frozenset({"surfaceId", "path", "value"})),
    "deleteSurface": (frozenset({"surfaceId"}), frozenset({"surfaceId"})),
}
# v0.10's messages that address no surface: (top-level fields required, allowed; the body's
# required fields, allowed ones or None for any).
_SURFACELESS: Final[
    dict[str, tuple[frozenset[str], frozenset[str], frozenset[str], Optional[frozenset[str]]]]
] = {
    "callFunction": (
        frozenset({"functionCallId"}),
        frozenset({"functionCallId", "wantResponse"}),
        frozenset({"call", "returnType", "callableFrom"}),
        None,
    ),
    "actionResponse": (
        frozenset({"actionId"}),
        frozenset({"actionId"}),
        frozenset(),
        frozenset({"value", "error"}),
    ),
}
_ALL_OPERATIONS: Final = (*_FIELDS, *_SURFACELESS)
# Component props that name other components of the same surface (the basic catalog's).
_SINGLE_REFERENCES: Final = ("child", "entryPointChild", "contentChild")

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class A2UIFinding:
    """One broken rule: ``rule`` (``a2ui.*``), ``severity``, what is wrong and how to fix it."""

    rule: str
    severity: Severity
    message: str
    message_id: Optional[str] = None
    surface_id: Optional[str] = None

    def __str__(self) -> str:
        where = f" (message {self.message_id})" if self.message_id else ""
        return f"{self.severity} [{self.rule}] {self.message}{where}"


@dataclass
class _SurfaceState:
    owner: str  # the activity message that created it
    components: dict[str, dict[str, Any]] = field(default_factory=dict)
    data: Any = None
    deleted: bool = False


class A2UIVerifier:
    """Feed every event (``check``); A2UI surfaces' findings come back per event.

    A snapshot replaces its message's content, so the surfaces one message created are rebuilt
    from each of its snapshots; surfaces another message created may be updated across messages.
    """

    def __init__(self) -> None:
        self._surfaces: dict[str, _SurfaceState] = {}
        self._painted: set[str] = set()

    def check(self, event: object) -> list[A2UIFinding]:
        """The findings of one event (any event; only ``a2ui-surface`` snapshots have any)."""
        if not isinstance(event, ActivitySnapshotEvent):
            return []
        return _Snapshot(self, event).run()

    def check_all(self, events: Iterable[object]) -> list[A2UIFinding]:
        return [finding for event in events for finding in self.check(event)]


def verify_a2ui(events: Iterable[object]) -> list[A2UIFinding]:
    """Every A2UI finding of a stream, in order (an empty list: nothing to report)."""
    return A2UIVerifier().check_all(events)


class _Snapshot:
    """The checks of one ``ACTIVITY_SNAPSHOT`` against the verifier's surfaces."""

    def __init__(self, verifier: A2UIVerifier, event: ActivitySnapshotEvent) -> None:
        self.verifier = verifier
        self.event = event
        self.message_id = event.message_id
        self.findings: list[A2UIFinding] = []

    def flag(
        self, rule: str, severity: Severity, message: str, surface: Optional[str] = None
    ) -> None:
        self.findings.append(A2UIFinding(rule, severity, message, self.message_id, surface))

    def run(self) -> list[A2UIFinding]:
        content = self.event.content
        looks_a2ui = _OPERATIONS_KEY in content or self.message_id.startswith("a2ui-surface-")
        if self.event.activity_type != ACTIVITY_TYPE:
            if looks_a2ui:
                self.flag(
                    "a2ui.activity-type",
                    "warning",
                    f"activityType is {self.event.activity_type!r} on an A2UI surface; "
                    f"renderers paint only {ACTIVITY_TYPE!r}",
                )
            return self.findings
        if self.event.replace is False:
            self.flag(
                "a2ui.replace",
                "warning",
                "replace is false: a2ui-surface snapshots replace the message's content "
                "(omit replace or send true)",
            )
        if "status" in content and _OPERATIONS_KEY not in content:
            self._status(content)
        elif isinstance(content.get(_OPERATIONS_KEY), list):
            self.verifier._painted.add(self.message_id)
            self._operations(content[_OPERATIONS_KEY])
        elif "operations" in content:
            self.flag(
                "a2ui.content-operations",
                "error",
                "content holds 'operations'; the renderer reads 'a2ui_operations' (rename the key)",
            )
        else:
            self.flag(
                "a2ui.content",
                "error",
                "a2ui-surface content needs 'a2ui_operations' (a list of envelopes) or a "
                f"'status' ({', '.join(sorted(_STATUSES))}); got keys {sorted(content)}",
            )
        return self.findings

    def _status(self, content: Mapping[str, Any]) -> None:
        status = content["status"]
        if status not in _STATUSES:
            self.flag(
                "a2ui.status",
                "error",
                f"status {status!r} is not one of {', '.join(sorted(_STATUSES))}",
            )
        elif self.message_id in self.verifier._painted:
            self.flag(
                "a2ui.status-after-paint",
                "warning",
                f"status {status!r} replaces a painted surface; lifecycle statuses come "
                "before the first paint",
            )

    def _operations(self, envelopes: list[Any]) -> None:
        surfaces = self.verifier._surfaces
        for surface_id in [
            key for key, state in surfaces.items() if state.owner == self.message_id
        ]:
            del surfaces[surface_id]  # this snapshot restates them
        touched: set[str] = set()
        for index, envelope in enumerate(envelopes):
            checked = self._envelope(index, envelope)
            if checked is not None:
                touched.add(checked)
        for surface_id in sorted(touched):
            state = surfaces.get(surface_id)
            if state is not None and not state.deleted:
                self._tree(surface_id, state)

    def _envelope(self, index: int, envelope: Any) -> Optional[str]:
        where = f"a2ui_operations[{index}]"
        if not isinstance(envelope, Mapping):
            self.flag("a2ui.envelope", "error", f"{where} is not a JSON object")
            return None
        operations = [key for key in _ALL_OPERATIONS if key in envelope]
        if len(operations) != 1:
            found = ", ".join(operations) or "none"
            self.flag(
                "a2ui.one-operation",
                "error",
                f"{where} must hold exactly one of {', '.join(_ALL_OPERATIONS)}; found "
                f"{found} (send one envelope per operation)",
            )
            return None
        operation = operations[0]
        version = envelope.get("version")
        if version not in _VERSIONS:
            self.flag(
                "a2ui.version",
                "error",
                f"{where} ({operation}) has version {version!r}; expected one of "
                f"{', '.join(sorted(_VERSIONS))}",
            )
        if operation in _SURFACELESS:
            self._surfaceless(where, operation, envelope)
            return None
        extra = set(envelope) - {"version", operation}
        if extra:
            self.flag(
                "a2ui.envelope",
                "error",
                f"{where} ({operation}) has fields the spec does not allow: {sorted(extra)}",
            )
        body = envelope[operation]
        if not isinstance(body, Mapping):
            self.flag("a2ui.envelope", "error", f"{where}.{operation} is not a JSON object")
            return None
        required, allowed = _FIELDS[operation]
        missing, unknown = required - set(body), set(body) - allowed
        if missing or unknown:
            parts = [f"missing {sorted(missing)}"] if missing else []
            parts += [f"unknown {sorted(unknown)}"] if unknown else []
            self.flag("a2ui.envelope", "error", f"{where}.{operation}: {'; '.join(parts)}")
        surface_id = body.get("surfaceId")
        if not isinstance(surface_id, str) or not surface_id:
            return None
        return surface_id if self._apply(where, operation, surface_id, body) else None

    def _surfaceless(self, where: str, operation: str, envelope: Mapping[str, Any]) -> None:
        if envelope.get("version") == "v0.9":
            self.flag("a2ui.version", "error", f"{where}: {operation} is a v0.10 message")
        top_required, top_allowed, required, allowed = _SURFACELESS[operation]
        top = set(envelope) - {"version", operation}
        problems = [f"missing {sorted(top_required - top)}"] if top_required - top else []
        if top - top_allowed:
            problems.append(f"fields the spec does not allow: {sorted(top - top_allowed)}")
        body = envelope[operation]
        if not isinstance(body, Mapping):
            problems.append(f"{operation} is not a JSON object")
        else:
            if required - set(body):
                problems.append(f"{operation} misses {sorted(required - set(body))}")
            if allowed is not None and set(body) - allowed:
                problems.append(f"{operation} has unknown {sorted(set(body) - allowed)}")
        if problems:
            self.flag("a2ui.envelope", "error", f"{where} ({operation}): {'; '.join(problems)}")

    def _apply(self, where: str, operation: str, surface_id: str, body: Mapping[str, Any]) -> bool:
        surfaces = self.verifier._surfaces
        state = surfaces.get(surface_id)
        if operation == "createSurface":
            if state is not None and not state.deleted:
                self.flag(
                    "a2ui.order",
                    "error",
                    f"{where} creates surface {surface_id!r} again; delete it first",
                    surface_id,
                )
                return False
            surfaces[surface_id] = _SurfaceState(owner=self.message_id)
            return True
        if state is None or state.deleted:
            gone = "after it was deleted" if state is not None else "before createSurface"
            self.flag(
                "a2ui.order",
                "error",
                f"{where} sends {operation} to surface {surface_id!r} {gone}",
                surface_id,
            )
            return False
        if operation == "deleteSurface":
            state.deleted = True
        elif operation == "updateComponents":
            self._components(where, surface_id, state, body.get("components"))
        else:
            state.data = _set_path(state.data, body.get("path"), body.get("value"), "value" in body)
        return True

    def _components(self, where: str, surface_id: str, state: _SurfaceState, items: Any) -> None:
        if not isinstance(items, list) or not items:
            self.flag("a2ui.envelope", "error", f"{where}: components must be a non-empty list")
            return
        seen: set[str] = set()
        for item in items:
            ok = isinstance(item, Mapping) and isinstance(item.get("id"), str)
            if not ok or not isinstance(item.get("component"), str):
                self.flag(
                    "a2ui.component",
                    "error",
                    f"{where}: each component needs a string 'id' and a string 'component' "
                    f"(the type name, v0.9 flat form); got {json.dumps(item)[:80]}",
                    surface_id,
                )
                continue
            component_id = item["id"]
            if component_id in seen:
                self.flag(
                    "a2ui.component-id",
                    "error",
                    f"{where}: component id {component_id!r} appears twice in one update",
                    surface_id,
                )
            seen.add(component_id)
            state.components[component_id] = dict(item)

    def _tree(self, surface_id: str, state: _SurfaceState) -> None:
        if not state.components:
            return
        if "root" not in state.components:
            self.flag(
                "a2ui.root",
                "warning",
                f"surface {surface_id!r} has components but none with id 'root'",
                surface_id,
            )
        for component_id, item in state.components.items():
            for reference in _references(item):
                if reference not in state.components:
                    self.flag(
                        "a2ui.reference",
                        "error",
                        f"component {component_id!r} names {reference!r}, which surface "
                        f"{surface_id!r} does not define",
                        surface_id,
                    )
            for path in _bindings(item):
                if state.data is not None and not _has_path(state.data, path):
                    self.flag(
                        "a2ui.binding",
                        "warning",
                        f"component {component_id!r} binds {path!r}, absent from the data "
                        f"model of surface {surface_id!r}",
                        surface_id,
                    )


def _references(item: Mapping[str, Any]) -> list[str]:
    found = [item[key] for key in _SINGLE_REFERENCES if isinstance(item.get(key), str)]
    children = item.get("children")
    if isinstance(children, list):
        found += [child for child in children if isinstance(child, str)]
    elif isinstance(children, Mapping) and isinstance(children.get("componentId"), str):
        found.append(children["componentId"])  # a template repeated over a data list
    tabs = item.get("tabItems")
    if isinstance(tabs, list):
        found += [
            tab["child"]
            for tab in tabs
            if isinstance(tab, Mapping) and isinstance(tab.get("child"), str)
        ]
    return found


def _bindings(value: Any) -> list[str]:
    """Absolute data paths (``{"path": "/..."}``) in a component's props; relative ones resolve
    against a template's item and are left alone."""
    found: list[str] = []
    if isinstance(value, Mapping):
        path = value.get("path")
        if isinstance(path, str) and path.startswith("/") and len(value) == 1:
            found.append(path)
        for key, inner in value.items():
            if key != "path":
                found += _bindings(inner)
    elif isinstance(value, list):
        for inner in value:
            found += _bindings(inner)
    return found


def _segments(path: Optional[str]) -> list[str]:
    if path is None or path in ("", "/"):
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in path.strip("/").split("/")]


def _set_path(model: Any, path: Optional[str], value: Any, has_value: bool) -> Any:
    parts = _segments(path)
    if not parts:
        return value if has_value else None
    root = model if isinstance(model, dict) else {}
    node = root
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    if has_value:
        node[parts[-1]] = value
    else:
        node.pop(parts[-1], None)
    return root


def _has_path(model: Any, path: str) -> bool:
    node = model
    for part in _segments(path):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True
