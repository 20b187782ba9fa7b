"""Legacy ``binary`` content parts become 1.0 media parts (PROTOCOL.md §1.4 conversion rule).

MIME prefix ``image/``, ``audio/``, ``video/`` picks the part type, anything else is a
document; ``data`` becomes a ``DataSource``, else ``url`` a ``UrlSource``; ``filename`` moves to
the part's ``metadata``. An id-only part cannot be converted and is kept (with a warning). A
converted part that duplicates a modern part already in the same message is dropped.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Callable, Optional

from ag_ui.core.deprecated import BinaryInputContent
from ag_ui.core.types import AudioPart, DataSource, DocumentPart, ImagePart, UrlSource, VideoPart
from ag_ui.verify._nulls import explicit_null

__all__ = ["convert_binary_part", "upgrade_message_dict", "upgrade_messages"]

_MEDIA = (ImagePart, AudioPart, VideoPart, DocumentPart)


def convert_binary_part(part: BinaryInputContent) -> Any:
    """The media part a legacy binary part becomes (the part itself if it has only an id)."""
    mime = part.mime_type
    if mime.startswith("image/"):
        cls: Any = ImagePart
    elif mime.startswith("audio/"):
        cls = AudioPart
    elif mime.startswith("video/"):
        cls = VideoPart
    else:
        cls = DocumentPart
    metadata = {"filename": part.filename} if part.filename else None
    if part.data:
        source: Any = DataSource(value=part.data, mime_type=mime)
    elif part.url:
        source = UrlSource(value=part.url, mime_type=mime)
    else:
        warnings.warn(
            f"[ag-ui][compat] A binary content part carries only an id ('{part.id or ''}') and "
            "cannot be converted to a media part; a 1.0 peer will not accept it.",
            DeprecationWarning,
            stacklevel=4,
        )
        return part
    return cls(source=source, metadata=metadata) if metadata else cls(source=source)


def _duplicates(other: Any, converted: Any, filename: Optional[str]) -> bool:
    if type(other) is not type(converted) or not isinstance(other, _MEDIA):
        return False
    mine, theirs = converted.source, other.source
    if (
        type(mine) is not type(theirs)
        or mine.value != theirs.value
        or getattr(theirs, "mime_type", None) != mine.mime_type
    ):
        return False
    metadata = other.metadata
    return not filename or (isinstance(metadata, dict) and metadata.get("filename") == filename)


def _upgrade_parts(parts: Sequence[Any]) -> list[Any]:
    upgraded: list[Any] = []
    for part in parts:
        if not isinstance(part, BinaryInputContent):
            upgraded.append(part)
            continue
        converted = convert_binary_part(part)
        if converted is not part and any(_duplicates(o, converted, part.filename) for o in parts):
            continue
        upgraded.append(converted)
    return upgraded


def upgrade_messages(
    messages: Sequence[Any], warn: Callable[[str, str], None]
) -> Optional[list[Any]]:
    """Messages with legacy binary parts upgraded, or ``None`` when nothing had to change.

    Also reports legacy ``metadata: null`` on media parts (already read as absent).
    """
    changed = False
    result: list[Any] = []
    for message in messages:
        content = getattr(message, "content", None)
        if isinstance(content, list):
            for part in content:
                if isinstance(part, _MEDIA) and explicit_null(part, "metadata"):
                    warn(f"{part.type} input content.metadata: null", "an absent field")
            if any(isinstance(part, BinaryInputContent) for part in content):
                warn("binary input content", "the modern media content parts")
                message = message.model_copy(update={"content": _upgrade_parts(content)})
                changed = True
        result.append(message)
    return result if changed else None


def _wire_media_part(part: Any) -> Any:
    """The wire media part a wire ``binary`` part becomes; the part itself if it has only an
    id (or is not a ``binary`` part we can read)."""
    mime = part.get("mimeType")
    if part.get("type") != "binary" or not isinstance(mime, str):
        return part
    kind = next(
        (name for name in ("image", "audio", "video") if mime.startswith(f"{name}/")), "document"
    )
    if isinstance(part.get("data"), str) and part["data"]:
        source = {"type": "data", "value": part["data"], "mimeType": mime}
    elif isinstance(part.get("url"), str) and part["url"]:
        source = {"type": "url", "value": part["url"], "mimeType": mime}
    else:
        return part
    upgraded: dict[str, Any] = {"type": kind, "source": source}
    if part.get("filename"):
        upgraded["metadata"] = {"filename": part["filename"]}
    return upgraded


def upgrade_message_dict(message: Any) -> Any:
    """A wire message whose legacy ``binary`` parts are media parts, before it is validated.

    What a client sends is upgraded silently whatever the peer (``@ag-ui/client`` 1.1 does the
    same on every outgoing run), so a legacy part in the application's own messages costs no
    ``BinaryInputContent`` and no deprecation warning; the same message when nothing changes.
    """
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list) or not any(
        isinstance(part, dict) and part.get("type") == "binary" for part in content
    ):
        return message
    parts = [_wire_media_part(part) if isinstance(part, dict) else part for part in content]
    return {**message, "content": parts}
