"""The protocol version this SDK speaks.

Producers declare it on ``RunStartedEvent(protocol_version=PROTOCOL_VERSION)``; clients on
``RunAgentInput(protocol_version=PROTOCOL_VERSION)``. Neither is filled in for you by the models:
a parsed event must not claim a version its producer never sent.

1.1 only adds optional fields to 1.0 (``encryptedValueType``), so a 1.0 peer reads what this SDK
writes once the server has stripped them for it (``docs/server.md``, "Older clients").
"""

PROTOCOL_VERSION = "1.1"

__all__ = ["PROTOCOL_VERSION"]
