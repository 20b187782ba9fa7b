"""The JSON Patch (RFC 6902) that turns one JSON document into another.

Objects are compared key by key, recursively; arrays and scalars that differ are replaced whole.
That keeps patches short for the usual agent state (an object of objects) and always correct:
positional array diffs are ambiguous and easy to get wrong for a consumer applying them.

>>> for op in json_patch_diff({"a": 1, "b": {"c": 2}}, {"b": {"c": 3}, "d": [1]}):
...     print(op)
{'op': 'remove', 'path': '/a'}
{'op': 'replace', 'path': '/b/c', 'value': 3}
{'op': 'add', 'path': '/d', 'value': [1]}
"""

from __future__ import annotations

import copy
from typing import Any

from ag_ui.json_patch import json_equal

__all__ = ["escape_pointer_segment", "json_equal", "json_patch_diff"]


def escape_pointer_segment(key: str) -> str:
    """Escape one object key for a JSON Pointer (RFC 6901): ``~`` -> ``~0``, ``/`` -> ``~1``."""
    return key.replace("~", "~0").replace("/", "~1")


def json_patch_diff(old: Any, new: Any) -> list[dict[str, Any]]:
    """Operations (plain dicts, as events carry them) that turn ``old`` into ``new``.

    Values in the patch are deep copies, so later changes to ``new`` do not alter it. The
    empty list means the documents are equal.
    """
    operations: list[dict[str, Any]] = []
    _diff_into(operations, "", old, new)
    return operations


def _diff_into(operations: list[dict[str, Any]], path: str, old: Any, new: Any) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                operations.append(
                    {"op": "remove", "path": f"{path}/{escape_pointer_segment(str(key))}"}
                )
        for key, value in new.items():
            child = f"{path}/{escape_pointer_segment(str(key))}"
            if key not in old:
                operations.append({"op": "add", "path": child, "value": copy.deepcopy(value)})
            else:
                _diff_into(operations, child, old[key], value)
        return
    if not json_equal(old, new):
        operations.append({"op": "replace", "path": path, "value": copy.deepcopy(new)})
