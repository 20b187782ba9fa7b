"""0.x shapes kept importable for code written before protocol 1.0. Not 1.0 wire surface.

``BinaryInputContent`` was retired by 1.0 in favour of the media parts (``ImagePart`` and
friends). It still parses inside a ``UserMessage`` so a legacy client's request is not rejected;
``ag_ui.verify``'s compatibility stage upgrades it to a media part.
"""

# No ``from __future__ import annotations`` in the model modules: pydantic would compile and
# evaluate every string annotation at import (7 ms of ``import ag_ui.core``).
import warnings
from typing import Literal, Optional

from pydantic import model_validator

from ag_ui.core._base import AGUIModel

__all__ = ["BinaryInputContent"]


class BinaryInputContent(AGUIModel):
    """Deprecated: a pre-1.0 binary fragment (image, audio, file). Use the media parts.

    At least one of ``id``, ``url`` or ``data`` must be given.
    """

    type: Literal["binary"] = "binary"
    mime_type: str
    id: Optional[str] = None
    url: Optional[str] = None
    data: Optional[str] = None
    filename: Optional[str] = None

    @model_validator(mode="after")
    def _require_a_source(self) -> "BinaryInputContent":
        warnings.warn(
            "BinaryInputContent is deprecated since AG-UI 1.0; use ImagePart, AudioPart, "
            "VideoPart or DocumentPart with a DataSource/UrlSource/FileSource",
            DeprecationWarning,
            stacklevel=2,
        )
        if not (self.id or self.url or self.data):
            raise ValueError("BinaryInputContent requires one of id, url or data")
        return self
