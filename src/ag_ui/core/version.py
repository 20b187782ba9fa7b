"""The protocol version this SDK speaks.

Producers declare it on ``RunStartedEvent(protocol_version=PROTOCOL_VERSION)``; clients on
``RunAgentInput(protocol_version=PROTOCOL_VERSION)``. Neither is filled in for you by the models:
a parsed event must not claim a version its producer never sent.
"""

PROTOCOL_VERSION = "1.0"

__all__ = ["PROTOCOL_VERSION"]
