"""Protocol versions: the one frameworks declare, and the one this SDK speaks.

``PROTOCOL_VERSION`` is the released official ``ag-ui-protocol``'s value ("1.0" in 1.0.0). This
package installs over that one, and framework integrations (pydantic-ai, ADK, Strands,
LlamaIndex, CrewAI) put ``ag_ui.core.PROTOCOL_VERSION`` in ``RUN_STARTED.protocolVersion``: a
drop-in must not change what they declare, or every 1.0 client (``@ag-ui/client`` 1.0.x) warns
on every run that its producer speaks a newer protocol. It moves when the official package does.

``SPOKEN_PROTOCOL_VERSION`` ("1.1") is what this SDK's own server, client and verifier speak:
the server declares it to a 1.1 client and downgrades per client (``docs/server.md``, "Older
clients"); ``HttpAgent`` sends it in ``RunAgentInput.protocolVersion``. 1.1 only adds optional
fields to 1.0 (``encryptedValueType``).

Neither is filled in for you by the models: a parsed event must not claim a version its
producer never sent.
"""

PROTOCOL_VERSION = "1.0"
SPOKEN_PROTOCOL_VERSION = "1.1"

__all__ = ["PROTOCOL_VERSION", "SPOKEN_PROTOCOL_VERSION"]
