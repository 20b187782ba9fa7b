"""Protocol versions: the producer's declaration and the peer's ceiling (client and `agui verify`).

Two version-dependent behaviours of ``@ag-ui/client@1.0.0``, in Python:

* **The producer's declaration** (``RUN_STARTED.protocolVersion``). A declaration is exactly
  two numeric components (``"1.1"``). Absent, equal or older is a downgrade to notice quietly;
  newer, or anything outside that grammar (``"1.0.0"``, ``"abc"``), is processed anyway with a
  ``ProtocolVersionWarning``, because this client may misread or drop what it does not know.
* **The peer ceiling** (``HttpAgent(max_protocol_version=...)``, TypeScript's
  ``maxProtocolVersion``): the newest version the *agent* is known to speak, ``"1.1"`` unless
  you pin an older backend. Below ``1.0`` the run input does not declare ``protocolVersion``
  (an older strict parser may reject an unknown member), and pre-1.0 eras get the downgrades in
  ``ag_ui.client.downgrade``.
"""

from __future__ import annotations

import re
import warnings
from typing import Literal, Optional

from ag_ui.core.version import SPOKEN_PROTOCOL_VERSION

__all__ = [
    "ProtocolVersionWarning",
    "compare_declared_protocol",
    "parse_version",
    "warn_about_producer_declaration",
]

_DECLARATION = re.compile(r"[0-9]+\.[0-9]+")
_CEILING = re.compile(r"[0-9]+(\.[0-9]+){0,2}")

Comparison = Literal["newer", "not-newer", "uninterpretable"]


class ProtocolVersionWarning(UserWarning):
    """The agent declared a protocol version newer than this client's, or an unreadable one."""


def parse_version(version: str) -> tuple[int, int, int]:
    """``"0.0.39"``, ``"1.0"`` or ``"1"`` as a comparable triple (missing parts are 0).

    Raises ``ValueError`` for anything else (pre-release tags, a leading ``v``...).
    """
    if not isinstance(version, str) or not _CEILING.fullmatch(version):
        raise ValueError(f"not a version this client can compare: {version!r}")
    parts = [int(part) for part in version.split(".")]
    major, minor, patch = [*parts, 0, 0][:3]
    return major, minor, patch


def compare_declared_protocol(declared: str, spoken: str = SPOKEN_PROTOCOL_VERSION) -> Comparison:
    """How a producer's declaration relates to the version this client speaks.

    The grammar is checked before comparing: ``"1.0.0"`` would otherwise compare equal to
    ``"1.0"``, yet it is not a declaration the protocol allows. A newer minor of the same
    major (``"1.2"`` against ``"1.1"``) is ``"newer"``: processed, with a warning, never refused.
    """
    if not _DECLARATION.fullmatch(declared):
        return "uninterpretable"
    return "newer" if parse_version(declared) > parse_version(spoken) else "not-newer"


def warn_about_producer_declaration(declared: Optional[str], *, stacklevel: int = 2) -> None:
    """Warn when RUN_STARTED declares a newer or unreadable protocol version (the client and
    ``agui verify`` both report it, as the 1.1 corpus asks of a consumer)."""
    if declared is None or declared == SPOKEN_PROTOCOL_VERSION:
        return
    comparison = compare_declared_protocol(declared)
    if comparison == "uninterpretable":
        message = (
            f"the agent declared protocol version {declared!r}, which this client cannot "
            f"interpret (expected two numbers such as {SPOKEN_PROTOCOL_VERSION!r}); the stream is "
            "processed anyway"
        )
    elif comparison == "newer":
        message = (
            f"the agent declared protocol version {declared!r}, newer than this client's "
            f"{SPOKEN_PROTOCOL_VERSION!r}; event types this client does not know are skipped "
            "with warnings"
        )
    else:
        return
    warnings.warn(message, ProtocolVersionWarning, stacklevel=stacklevel + 1)
