"""The public surface of ``ag_ui.client`` is pinned; it needs httpx and says so."""

from __future__ import annotations

import subprocess
import sys

import ag_ui.client

EXPECTED = [
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


def test_client_all_is_pinned_and_importable() -> None:
    assert ag_ui.client.__all__ == EXPECTED
    for name in EXPECTED:
        assert getattr(ag_ui.client, name) is not None


def test_core_does_not_load_httpx_and_the_client_names_its_extra() -> None:
    code = (
        "import sys; import ag_ui.core; assert 'httpx' not in sys.modules\n"
        "sys.modules['httpx'] = None\n"
        "try:\n    import ag_ui.client\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'ag-ui-sdk[client]'" in out.stdout
