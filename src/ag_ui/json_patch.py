"""RFC 6902 JSON Patch with path copying: O(size of the patch), never O(size of the document).

``apply_patch(document, operations)`` returns a new document and leaves the input untouched:
only the containers on the path an operation touches are copied (a shallow copy per level), and
every other subtree is shared with the input. A 10 MB state patched with one ``replace`` costs
a few microseconds instead of the hundreds of milliseconds a deep copy takes.

Patches are atomic: if any operation fails, ``PatchError`` is raised (naming the operation
index, the operation and the path) and nothing is returned.

>>> apply_patch({"a": {"b": 1}, "c": [1]}, [{"op": "replace", "path": "/a/b", "value": 2}])
{'a': {'b': 2}, 'c': [1]}
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Union

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.core.errors import PatchError

__all__ = ["apply_patch", "json_equal", "parse_pointer"]

Container = Union[dict[str, Any], list[Any]]
_BAD_ESCAPE = re.compile(r"~(?![01])")


def parse_pointer(pointer: str) -> list[str]:
    """Split an RFC 6901 pointer into unescaped tokens (``""`` is the whole document)."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer {pointer!r} must be empty or start with '/'")
    tokens = pointer[1:].split("/")
    if "~" in pointer:
        if _BAD_ESCAPE.search(pointer):
            raise ValueError(f"JSON Pointer {pointer!r} has a '~' not followed by 0 or 1")
        tokens = [token.replace("~1", "/").replace("~0", "~") for token in tokens]
    return tokens


def json_equal(left: Any, right: Any) -> bool:
    """Equality as JSON sees it, for ``test`` and the server's state diff.

    ``1 == 1.0`` (one JSON number), but ``true`` is not ``1`` and ``1`` is not ``"1"``; a tuple
    is the JSON array it serializes as.
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, dict):
        return (
            isinstance(right, dict)
            and left.keys() == right.keys()
            and all(json_equal(value, right[key]) for key, value in left.items())
        )
    if isinstance(left, (list, tuple)):
        return (
            isinstance(right, (list, tuple))
            and len(left) == len(right)
            and all(json_equal(a, b) for a, b in zip(left, right, strict=True))
        )
    if isinstance(left, (int, float)) and isinstance(right, (int, float)):
        return left == right
    return type(left) is type(right) and bool(left == right)


class _Failure(Exception):
    def __init__(self, message: str, path: str) -> None:
        self.message = message
        self.path = path


def _array_index(token: str, length: int, path: str, *, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise _Failure(f"{token!r} is not an array index", path)
    index = int(token)
    if index > length or (index == length and not allow_end):
        raise _Failure(f"array index {index} is out of range (length {length})", path)
    return index


class _Patcher:
    """Applies operations to one document, copying each container once per patch."""

    def __init__(self, document: Any) -> None:
        self.document = document
        # ids of the containers this patch created: those may be changed in place.
        self.owned: set[int] = set()

    def _own(self, container: Container) -> Container:
        if id(container) in self.owned:
            return container
        copied: Container = dict(container) if isinstance(container, dict) else list(container)
        self.owned.add(id(copied))
        return copied

    def _parent(self, tokens: list[str], path: str) -> Container:
        """Copy the path down to the parent of the last token; return that (owned) parent."""
        root = self.document
        if not isinstance(root, (dict, list)):
            raise _Failure("the document is not an object or array", path)
        root = self._own(root)
        self.document = root
        node: Container = root
        for token in tokens[:-1]:
            if isinstance(node, dict):
                if token not in node:
                    raise _Failure(f"member {token!r} does not exist", path)
                child = node[token]
                key: Any = token
            else:
                key = _array_index(token, len(node), path, allow_end=False)
                child = node[key]
            if not isinstance(child, (dict, list)):
                raise _Failure(f"{token!r} is not an object or array", path)
            child = self._own(child)
            node[key] = child
            node = child
        return node

    def get(self, tokens: list[str], path: str) -> Any:
        node = self.document
        for token in tokens:
            if isinstance(node, dict):
                if token not in node:
                    raise _Failure(f"member {token!r} does not exist", path)
                node = node[token]
            elif isinstance(node, list):
                node = node[_array_index(token, len(node), path, allow_end=False)]
            else:
                raise _Failure(f"cannot descend into a {type(node).__name__}", path)
        return node

    def add(self, tokens: list[str], path: str, value: Any) -> None:
        if not tokens:
            self.document = value
            return
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            parent[last] = value
        else:
            parent.insert(_array_index(last, len(parent), path, allow_end=True), value)

    def remove(self, tokens: list[str], path: str) -> Any:
        if not tokens:
            raise _Failure("cannot remove the whole document", path)
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise _Failure(f"member {last!r} does not exist", path)
            return parent.pop(last)
        return parent.pop(_array_index(last, len(parent), path, allow_end=False))

    def replace(self, tokens: list[str], path: str, value: Any) -> None:
        if not tokens:
            self.document = value
            return
        parent = self._parent(tokens, path)
        last = tokens[-1]
        if isinstance(parent, dict):
            if last not in parent:
                raise _Failure(f"member {last!r} does not exist", path)
            parent[last] = value
        else:
            parent[_array_index(last, len(parent), path, allow_end=False)] = value

    def apply(self, operation: Any) -> None:
        if not isinstance(operation, dict):
            raise _Failure("an operation must be an object", "")
        op = operation.get("op")
        path = operation.get("path")
        if not isinstance(path, str):
            raise _Failure('"path" must be a string', "")
        try:
            tokens = parse_pointer(path)
        except ValueError as exc:
            raise _Failure(str(exc), path) from None
        if op in ("add", "replace", "test") and "value" not in operation:
            raise _Failure(f'"{op}" needs a "value"', path)
        if op == "add":
            self.add(tokens, path, operation["value"])
        elif op == "remove":
            self.remove(tokens, path)
        elif op == "replace":
            self.replace(tokens, path, operation["value"])
        elif op == "test":
            if not json_equal(self.get(tokens, path), operation["value"]):
                raise _Failure("test failed: the value differs", path)
        elif op in ("move", "copy"):
            source = operation.get("from")
            if not isinstance(source, str):
                raise _Failure(f'"{op}" needs a "from" pointer', path)
            try:
                from_tokens = parse_pointer(source)
            except ValueError as exc:
                raise _Failure(str(exc), source) from None
            if op == "move":
                if source == path:
                    self.get(from_tokens, source)
                    return
                if path.startswith(source + "/") or (source == "" and path != ""):
                    raise _Failure("cannot move a value into one of its own children", path)
                value = self.get(from_tokens, source)
                self.remove(from_tokens, source)
                self.add(tokens, path, value)
            else:
                value = self.get(from_tokens, source)
                self.add(tokens, path, value)
                # The copied value is now reachable twice: stop mutating owned containers in
                # place, so a later operation on one location cannot show through the other.
                self.owned.clear()
        else:
            raise _Failure(f"unknown operation {op!r}", path)


def apply_patch(document: Any, operations: Sequence[Any]) -> Any:
    """Apply RFC 6902 ``operations`` (plain dicts) to ``document``; return the new document.

    The input document is never modified. Raises ``PatchError`` when an operation fails.
    """
    patcher = _Patcher(document)
    for index, operation in enumerate(operations):
        try:
            patcher.apply(operation)
        except _Failure as failure:
            raise PatchError(
                f"{failure.message} (path {failure.path!r})",
                operation_index=index,
                operation=operation,
                path=failure.path,
            ) from None
    return patcher.document
