"""The sans-IO SSE decoder, kept importable here; it lives in ``ag_ui.encoder.sse_decoder``.

It moved beside the SSE writer so that code without httpx (recordings, the CLI, servers that
read SSE) can decode SSE too.
"""

from ag_ui.encoder.sse_decoder import DEFAULT_MAX_EVENT_SIZE, SSEDecoder, SSEMessage

__all__ = ["DEFAULT_MAX_EVENT_SIZE", "SSEDecoder", "SSEMessage"]
