"""The compiled flat-event fast paths (``_speedups.c``); see ``ag_ui.proto._fast``."""

from typing import Any, Callable, Optional

def encode_flat(event: Any, framed: bool = ...) -> Optional[bytes]: ...
def decode_flat(data: bytes, start: int = ..., end: int = ...) -> Optional[Any]: ...
def configure(dict_slot: Any, fields_set_slot: Any, extra_slot: Any, private_slot: Any) -> None: ...
def register(
    cls: type,
    type_member: Any,
    arm_tag: int,
    number: int,
    fields: tuple[tuple[str, int, bool], ...],
    defaults: dict[str, Any],
    always_set: frozenset[str],
    complete: Optional[Callable[[dict[str, Any], set[str]], bool]],
) -> None: ...
