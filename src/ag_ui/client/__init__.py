"""The AG-UI client: ``HttpAgent`` over SSE or protobuf, subscribers, middleware, interrupts.

Needs the ``client`` extra (httpx); protobuf responses also need the ``proto`` extra. This
package is the client's one public surface: every name a client user needs, the errors and
warnings a run can raise included, is importable from here (the modules behind it are
private; ``versions`` and ``downgrade`` are public modules of their own).

>>> from ag_ui.client import HttpAgent
>>> agent = HttpAgent("http://127.0.0.1:8000/agent", initial_messages=[
...     {"id": "u1", "role": "user", "content": "Hello"}])
>>> # result = await agent.run_agent()
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

# httpx is imported on first use (a run, ``new_http_client``), not here: it is most of this
# package's import time. Whether it is installed is still told now, as before.
if find_spec("httpx") is None:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.client needs httpx; install the 'client' extra: pip install 'ag-ui-sdk[client]'"
    )

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.apply import PatchFailedWarning
from ag_ui.client._agent import HttpAgent
from ag_ui.client._config import HttpConfig
from ag_ui.client._debug import DebugConfig
from ag_ui.client._decoding import (
    EventDecoder,
    ProtoEventDecoder,
    SSEEventDecoder,
    UnknownEventWarning,
    decoder_for_content_type,
)
from ag_ui.client._event_stream import AgentEventStream
from ag_ui.client._interrupts import (
    build_resume_array,
    check_resume_covers,
    get_run_outcome,
    interrupts_of,
    is_interrupt_expired,
)
from ag_ui.client._middleware import (
    FilterToolCallsMiddleware,
    FunctionMiddleware,
    Middleware,
    MiddlewareFunction,
    NextAgent,
)
from ag_ui.client._reconnect import Reconnect, ReconnectPolicy
from ag_ui.client._result import RunAgentResult
from ag_ui.client._signal import AbortSignal
from ag_ui.client._subscribers import (
    UNSET,
    AgentStateMutation,
    AgentSubscriber,
    SubscriberParams,
    Subscription,
)
from ag_ui.client._sync import SyncHttpAgent
from ag_ui.client.downgrade import PeerDowngradeWarning
from ag_ui.client.versions import ProtocolVersionWarning
from ag_ui.core.errors import (
    AGUIError,
    AGUIValidationError,
    ChunkExpansionError,
    ConnectionLostError,
    ContentTypeError,
    DecodeError,
    EventSequenceError,
    FrameTooLargeError,
    HTTPStatusError,
    IdleTimeoutError,
    IncompleteStreamError,
    InterruptError,
    MalformedFrameError,
    ProtocolError,
    RedirectError,
    RunError,
    SubscriberError,
    ToolRoundsExceededError,
    TransportError,
    TruncatedFrameError,
)
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE, SSEDecoder, SSEMessage

__all__ = [
    "DEFAULT_MAX_EVENT_SIZE",
    "UNSET",
    "AGUIError",
    "AGUIValidationError",
    "AbortSignal",
    "AgentEventStream",
    "AgentStateMutation",
    "AgentSubscriber",
    "ChunkExpansionError",
    "ConnectionLostError",
    "ContentTypeError",
    "DebugConfig",
    "DecodeError",
    "EventDecoder",
    "EventSequenceError",
    "FilterToolCallsMiddleware",
    "FrameTooLargeError",
    "FunctionMiddleware",
    "HTTPStatusError",
    "HttpAgent",
    "HttpConfig",
    "IdleTimeoutError",
    "IncompleteStreamError",
    "InterruptError",
    "MalformedFrameError",
    "Middleware",
    "MiddlewareFunction",
    "NextAgent",
    "PatchFailedWarning",
    "PeerDowngradeWarning",
    "ProtoEventDecoder",
    "ProtocolError",
    "ProtocolVersionWarning",
    "Reconnect",
    "ReconnectPolicy",
    "RedirectError",
    "RunAgentResult",
    "RunError",
    "SSEDecoder",
    "SSEEventDecoder",
    "SSEMessage",
    "SubscriberError",
    "SubscriberParams",
    "Subscription",
    "SyncHttpAgent",
    "ToolRoundsExceededError",
    "TransportError",
    "TruncatedFrameError",
    "UnknownEventWarning",
    "build_resume_array",
    "check_resume_covers",
    "decoder_for_content_type",
    "get_run_outcome",
    "interrupts_of",
    "is_interrupt_expired",
    "new_http_client",
]

if TYPE_CHECKING:
    from ag_ui.client._transport import new_http_client


def __getattr__(name: str) -> Any:
    if name == "new_http_client":  # imports httpx: only when asked for
        from ag_ui.client._transport import new_http_client

        return new_http_client
    raise AttributeError(f"module 'ag_ui.client' has no attribute {name!r}")
