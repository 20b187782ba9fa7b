"""The AG-UI client: ``HttpAgent`` over SSE or protobuf, subscribers, middleware, interrupts.

Needs the ``client`` extra (httpx); protobuf responses also need the ``proto`` extra.

>>> from ag_ui.client import HttpAgent
>>> agent = HttpAgent("http://127.0.0.1:8000/agent", initial_messages=[
...     {"id": "u1", "role": "user", "content": "Hello"}])
>>> # result = await agent.run_agent()
"""

from __future__ import annotations

try:
    import httpx  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "ag_ui.client needs httpx; install the 'client' extra: pip install 'ag-ui-sdk[client]'"
    ) from exc

import ag_ui._require_sdk  # noqa: F401  (first: are the files shared with ag-ui-protocol ours?)
from ag_ui.client.agent import HttpAgent
from ag_ui.client.debug import DebugConfig
from ag_ui.client.decoding import (
    EventDecoder,
    ProtoEventDecoder,
    SSEEventDecoder,
    UnknownEventWarning,
    decoder_for_content_type,
)
from ag_ui.client.event_stream import AgentEventStream
from ag_ui.client.interrupts import (
    build_resume_array,
    check_resume_covers,
    get_run_outcome,
    interrupts_of,
    is_interrupt_expired,
)
from ag_ui.client.middleware import (
    FilterToolCallsMiddleware,
    FunctionMiddleware,
    Middleware,
    MiddlewareFunction,
    NextAgent,
)
from ag_ui.client.reconnect import Reconnect, ReconnectPolicy
from ag_ui.client.result import RunAgentResult
from ag_ui.client.subscriber import (
    UNSET,
    AgentStateMutation,
    AgentSubscriber,
    SubscriberParams,
    Subscription,
)
from ag_ui.client.sync import SyncHttpAgent
from ag_ui.client.transport import AbortSignal
from ag_ui.core.errors import InterruptError
from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE, SSEDecoder, SSEMessage

__all__ = [
    "DEFAULT_MAX_EVENT_SIZE",
    "UNSET",
    "AbortSignal",
    "AgentEventStream",
    "AgentStateMutation",
    "AgentSubscriber",
    "DebugConfig",
    "EventDecoder",
    "FilterToolCallsMiddleware",
    "FunctionMiddleware",
    "HttpAgent",
    "InterruptError",
    "Middleware",
    "MiddlewareFunction",
    "NextAgent",
    "ProtoEventDecoder",
    "Reconnect",
    "ReconnectPolicy",
    "RunAgentResult",
    "SSEDecoder",
    "SSEEventDecoder",
    "SSEMessage",
    "SubscriberParams",
    "Subscription",
    "SyncHttpAgent",
    "UnknownEventWarning",
    "build_resume_array",
    "check_resume_covers",
    "decoder_for_content_type",
    "get_run_outcome",
    "interrupts_of",
    "is_interrupt_expired",
]
