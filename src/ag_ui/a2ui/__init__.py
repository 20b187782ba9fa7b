"""A2UI (declarative UI from agents) on AG-UI: envelope builders and surfaces an agent paints.

- ``create_surface`` / ``update_components`` / ``update_data_model`` / ``delete_surface``:
  one envelope each, A2UI ``v0.9`` (default) or ``v0.10``; ``component`` builds a flat one.
- ``Surface``: returns the next ``ACTIVITY_SNAPSHOT`` (``building``, ``retrying``, ``failed``
  before the first paint; then the operations); emit it with ``ctx.emit``.
- ``operations_result``: the ``{"a2ui_operations": [...]}`` tool result a renderer paints;
  ``recovery_exhausted_result``: the one that shows the ``failed`` status.

Checks on the wire: ``ag_ui.verify.verify_a2ui`` (rule ids ``a2ui.*``).
"""

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.a2ui._envelopes import (
    BASIC_CATALOG_V0_9,
    OPERATION_KEYS,
    OPERATIONS_KEY,
    VERSIONS,
    Version,
    component,
    create_surface,
    delete_surface,
    operations_result,
    recovery_exhausted_result,
    surface_id_of,
    update_components,
    update_data_model,
)
from ag_ui.a2ui._surface import ACTIVITY_TYPE, MAX_ATTEMPTS, Surface, surface_message_id

__all__ = [
    "ACTIVITY_TYPE",
    "BASIC_CATALOG_V0_9",
    "MAX_ATTEMPTS",
    "OPERATIONS_KEY",
    "OPERATION_KEYS",
    "VERSIONS",
    "Surface",
    "Version",
    "component",
    "create_surface",
    "delete_surface",
    "operations_result",
    "recovery_exhausted_result",
    "surface_id_of",
    "surface_message_id",
    "update_components",
    "update_data_model",
]
