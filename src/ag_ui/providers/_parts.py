"""Content parts as the request builders see them: the retired ``binary`` part upgraded to its
1.0 media part, data URLs, text documents decoded, and the error for a part an API cannot take.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, Union

from ag_ui.core.deprecated import BinaryInputContent
from ag_ui.core.errors import RunError
from ag_ui.core.types import (
    AudioPart,
    DataSource,
    DocumentPart,
    FileSource,
    ImagePart,
    TextPart,
    UrlSource,
    VideoPart,
)

__all__ = [
    "UNSUPPORTED_CONTENT_CODE",
    "MediaPart",
    "Part",
    "data_url",
    "decoded_text",
    "filename_of",
    "media_parts",
    "unsupported",
]

UNSUPPORTED_CONTENT_CODE = "unsupported_content"

MediaPart = Union[ImagePart, AudioPart, VideoPart, DocumentPart]
Part = Union[TextPart, MediaPart]

_TEXT_DOCUMENT_TYPES = ("text/", "application/json", "application/xml", "application/x-yaml")


def _upgrade(part: BinaryInputContent) -> MediaPart:
    mime = part.mime_type
    source: Union[DataSource, UrlSource, FileSource]
    if part.data:
        source = DataSource(value=part.data, mime_type=mime)
    elif part.url:
        source = UrlSource(value=part.url, mime_type=mime)
    else:
        source = FileSource(value=part.id or "", mime_type=mime)
    metadata = {"filename": part.filename} if part.filename else None
    kind = mime.split("/", 1)[0]
    if kind == "image":
        return ImagePart(source=source, metadata=metadata)
    if kind == "audio":
        return AudioPart(source=source, metadata=metadata)
    if kind == "video":
        return VideoPart(source=source, metadata=metadata)
    return DocumentPart(source=source, metadata=metadata)


def media_parts(content: Any) -> list[Part]:
    """A user message's parts with legacy ``binary`` parts upgraded (a string is one text part)."""
    if isinstance(content, str):
        return [TextPart(text=content)]
    return [_upgrade(part) if isinstance(part, BinaryInputContent) else part for part in content]


def data_url(source: DataSource) -> str:
    return f"data:{source.mime_type};base64,{source.value}"


def mime_of(part: MediaPart) -> str:
    return (part.source.mime_type or "").lower()


def is_text_document(part: MediaPart) -> bool:
    return isinstance(part, DocumentPart) and mime_of(part).startswith(_TEXT_DOCUMENT_TYPES)


def decoded_text(part: MediaPart, *, api: str, where: str) -> str:
    """The text of an inline text document (base64 UTF-8)."""
    assert isinstance(part.source, DataSource)
    try:
        return base64.b64decode(part.source.value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise RunError(
            f"{where}: the {part.type} part's data is not base64 UTF-8 text "
            f"({part.source.mime_type}); {api} needs text documents as text",
            code=UNSUPPORTED_CONTENT_CODE,
        ) from None


def filename_of(part: MediaPart, default: str) -> str:
    metadata = part.metadata
    if isinstance(metadata, dict) and isinstance(metadata.get("filename"), str):
        return str(metadata["filename"])
    return default


def unsupported(part: Part, *, api: str, where: str, supported: str) -> RunError:
    """The error for a part ``api`` cannot take: names the part, its source and what works."""
    source = getattr(part, "source", None)
    described = f"the {part.type} part"
    if source is not None:
        mime = getattr(source, "mime_type", None)
        described += f" ({source.type} source{', ' + mime if mime else ''})"
    return RunError(
        f"{where}: {api} cannot take {described}; it accepts {supported}",
        code=UNSUPPORTED_CONTENT_CODE,
    )
