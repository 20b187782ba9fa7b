"""A2UI envelopes: one server-to-client operation each, as the spec's JSON Schema shapes them.

A2UI (``a2ui-project/a2ui``) versions ``v0.9`` and ``v0.10`` share the four surface operations;
every envelope carries ``version`` and exactly one operation key, and no other field.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, Optional

__all__ = [
    "OPERATIONS_KEY",
    "BASIC_CATALOG_V0_9",
    "OPERATION_KEYS",
    "VERSIONS",
    "Version",
    "component",
    "create_surface",
    "delete_surface",
    "operations_result",
    "recovery_exhausted_result",
    "surface_id_of",
    "update_components",
    "update_data_model",
]

Version = Literal["v0.9", "v0.10"]
VERSIONS: Final = ("v0.9", "v0.10")
BASIC_CATALOG_V0_9: Final = "https://a2ui.org/specification/v0_9/basic_catalog.json"
OPERATION_KEYS: Final = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")
OPERATIONS_KEY: Final = "a2ui_operations"


def _check_version(version: str) -> None:
    if version not in VERSIONS:
        raise ValueError(f"A2UI version {version!r} is not one of {', '.join(VERSIONS)}")


def _check_id(name: str, value: object) -> None:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")


def create_surface(
    surface_id: str,
    catalog_id: str = BASIC_CATALOG_V0_9,
    *,
    theme: Optional[Mapping[str, Any]] = None,
    send_data_model: Optional[bool] = None,
    version: Version = "v0.9",
) -> dict[str, Any]:
    """``createSurface``: the client makes a surface rendered with the catalog ``catalog_id``."""
    _check_version(version)
    _check_id("surface_id", surface_id)
    _check_id("catalog_id", catalog_id)
    body: dict[str, Any] = {"surfaceId": surface_id, "catalogId": catalog_id}
    if theme is not None:
        body["theme"] = dict(theme)
    if send_data_model is not None:
        body["sendDataModel"] = send_data_model
    return {"version": version, "createSurface": body}


def component(component_id: str, component_type: str, **props: Any) -> dict[str, Any]:
    """One flat component: ``{"id", "component", **props}`` (children name other ids)."""
    _check_id("component_id", component_id)
    _check_id("component_type", component_type)
    clash = {"id", "component"} & set(props)
    if clash:
        raise ValueError(f"component props may not be named {sorted(clash)}")
    return {"id": component_id, "component": component_type, **props}


def update_components(
    surface_id: str, components: Sequence[Mapping[str, Any]], *, version: Version = "v0.9"
) -> dict[str, Any]:
    """``updateComponents``: add or replace components (by id) on a surface."""
    _check_version(version)
    _check_id("surface_id", surface_id)
    if not components:
        raise ValueError("updateComponents needs at least one component")
    items = [dict(item) for item in components]
    for item in items:
        _check_id("a component's id", item.get("id"))
        _check_id(f"component {item['id']!r}'s type", item.get("component"))
    return {"version": version, "updateComponents": {"surfaceId": surface_id, "components": items}}


_ABSENT: Any = object()


def update_data_model(
    surface_id: str, value: Any = _ABSENT, *, path: Optional[str] = None, version: Version = "v0.9"
) -> dict[str, Any]:
    """``updateDataModel``: set ``value`` at ``path`` (the whole model when no path); no
    value removes the key at ``path``."""
    _check_version(version)
    _check_id("surface_id", surface_id)
    if path is not None and not path.startswith("/"):
        raise ValueError(f"a data model path starts with '/', got {path!r}")
    body: dict[str, Any] = {"surfaceId": surface_id}
    if path is not None:
        body["path"] = path
    if value is not _ABSENT:
        body["value"] = value
    return {"version": version, "updateDataModel": body}


def delete_surface(surface_id: str, *, version: Version = "v0.9") -> dict[str, Any]:
    """``deleteSurface``: the client removes the surface."""
    _check_version(version)
    _check_id("surface_id", surface_id)
    return {"version": version, "deleteSurface": {"surfaceId": surface_id}}


def surface_id_of(envelope: Mapping[str, Any]) -> Optional[str]:
    """The surface an envelope addresses (None when it has no operation naming one)."""
    for key in OPERATION_KEYS:
        body = envelope.get(key)
        if isinstance(body, Mapping) and isinstance(body.get("surfaceId"), str):
            return str(body["surfaceId"])
    return None


def operations_result(envelopes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A tool result that paints: ``{"a2ui_operations": [...]}`` (JSON-encode it as content)."""
    return {OPERATIONS_KEY: [dict(envelope) for envelope in envelopes]}


def recovery_exhausted_result(error: str, attempts: Sequence[Any] = ()) -> dict[str, Any]:
    """A tool result saying the UI could not be generated: a renderer shows the surface's
    ``failed`` status (``{"code": "a2ui_recovery_exhausted", "error", "attempts"}``)."""
    return {"code": "a2ui_recovery_exhausted", "error": error, "attempts": list(attempts)}
