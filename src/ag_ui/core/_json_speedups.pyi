"""The compiled SSE/JSON fast paths of the flat events (``_c/``); see ``ag_ui.core._json_plans``."""

from typing import Any, Optional, Union

def sse_text(event: Any) -> Optional[str]: ...
def sse_bytes(event: Any) -> Optional[bytes]: ...
def json(event: Any) -> Optional[bytes]: ...
def read(data: Union[str, bytes]) -> Optional[Any]: ...
def configure(dict_slot: Any, fields_set_slot: Any, extra_slot: Any, private_slot: Any) -> None: ...
def register(
    cls: type,
    type_member: Any,
    type_name: bytes,
    prefix: bytes,
    decodable: bool,
    fields: tuple[
        tuple[str, bytes, bytes, bytes, int, bool, bool, bool, Optional[frozenset[str]], Any],
        ...,
    ],
) -> None: ...
