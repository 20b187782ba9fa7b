"""Provider adapters: the cost of turning one streamed token into AG-UI events, against what the
provider SDK itself spends on that chunk (target: under 10%).

For each API a text answer of N tokens, one token per chunk, in the provider's documented SSE
format (the fields real streams carry: ids, fingerprints, ``obfuscation`` padding...):

* SDK: the real ``openai`` / ``anthropic`` async client reading the body from an in-memory
  ``httpx2`` transport (no network) that delivers one SSE event per read: SSE decoding, JSON,
  the SDK's models: everything the SDK does per chunk, timed from the first chunk to the last
  (the request's fixed cost comes before the first chunk).
* adapter: ``adapter.feed(chunk)`` on each of those SDK chunk objects, then ``close()``: the
  AG-UI events of the turn (one ``TEXT_MESSAGE_CONTENT`` per token).
* for reference, the rest of the server path per token: the run guard with the verifier and
  the SSE encoding of the event (``ag_ui.server``'s own cost, not the adapter's).

Best of several rounds; the ratio is what to read.

    .venv/bin/python benchmarks/bench_providers.py [--tokens 4000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import openai

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.providers import AnthropicAdapter, ChatCompletionsAdapter, ResponsesAdapter
from ag_ui.server import RunGuard
from ag_ui.verify import EventVerifier

WORDS = [" Hello", " wörld", ",", " this", " is", " a", " tést", " 🚀", " of", " streaming"]


def _sse(data: dict[str, Any], event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n"


def chat_body(tokens: int) -> bytes:
    base = {
        "id": "chatcmpl-AbCdEfGhIjKlMnOpQrStUvWxYz012",
        "object": "chat.completion.chunk",
        "created": 1730000000,
        "model": "gpt-4o-mini-2024-07-18",
        "service_tier": "default",
        "system_fingerprint": "fp_0ba0d124f1",
    }
    parts = [
        _sse(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": ""},
                        "logprobs": None,
                        "finish_reason": None,
                    }
                ],
                "obfuscation": "k3",
            }
        )
    ]
    for i in range(tokens):
        delta = {"content": WORDS[i % len(WORDS)]}
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
        parts.append(_sse({**base, "choices": [choice], "obfuscation": "Xo9"}))
    parts.append(
        _sse(
            {
                **base,
                "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}],
                "obfuscation": "a",
            }
        )
    )
    usage = {"prompt_tokens": 20, "completion_tokens": tokens, "total_tokens": 20 + tokens}
    parts.append(_sse({**base, "choices": [], "usage": usage, "obfuscation": "qw"}))
    parts.append("data: [DONE]\n\n")
    return "".join(parts).encode()


def responses_body(tokens: int) -> bytes:
    response = {
        "id": "resp_67c9fdcecf488190bdd9a0409de3a1ec",
        "object": "response",
        "created_at": 1730000000,
        "model": "gpt-5-mini-2025-08-07",
        "output": [],
    }
    item = {
        "id": "msg_67c9fdcf37fc8190ba82116e33fb28c5",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    parts = [
        _sse(
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {**response, "status": "in_progress"},
            },
            "response.created",
        ),
        _sse(
            {
                "type": "response.output_item.added",
                "sequence_number": 1,
                "output_index": 0,
                "item": item,
            },
            "response.output_item.added",
        ),
    ]
    for i in range(tokens):
        delta = {
            "type": "response.output_text.delta",
            "sequence_number": i + 2,
            "item_id": item["id"],
            "output_index": 0,
            "content_index": 0,
            "delta": WORDS[i % len(WORDS)],
            "logprobs": [],
            "obfuscation": "Xo9",
        }
        parts.append(_sse(delta, "response.output_text.delta"))
    done = {**item, "status": "completed"}
    usage = {
        "input_tokens": 20,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20 + tokens,
    }
    parts.append(
        _sse(
            {
                "type": "response.output_item.done",
                "sequence_number": tokens + 2,
                "output_index": 0,
                "item": done,
            },
            "response.output_item.done",
        )
    )
    parts.append(
        _sse(
            {
                "type": "response.completed",
                "sequence_number": tokens + 3,
                "response": {**response, "status": "completed", "usage": usage},
            },
            "response.completed",
        )
    )
    return "".join(parts).encode()


def anthropic_body(tokens: int) -> bytes:
    message = {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 20, "output_tokens": 1},
    }
    parts = [
        _sse({"type": "message_start", "message": message}, "message_start"),
        _sse(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "content_block_start",
        ),
    ]
    for i in range(tokens):
        delta = {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": WORDS[i % len(WORDS)]},
        }
        parts.append(_sse(delta, "content_block_delta"))
    parts.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    parts.append(
        _sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": tokens},
            },
            "message_delta",
        )
    )
    parts.append(_sse({"type": "message_stop"}, "message_stop"))
    return "".join(parts).encode()


class _Frames(httpx2.AsyncByteStream):
    """The body as a network delivers a stream: one SSE event per read."""

    def __init__(self, body: bytes) -> None:
        self._frames = [frame + b"\n\n" for frame in body.split(b"\n\n") if frame]

    async def __aiter__(self) -> Any:
        for frame in self._frames:
            yield frame


def _transport(body: bytes) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=_Frames(body))

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer))


async def _drain(stream: Any) -> tuple[list[Any], float]:
    """Every chunk of ``stream``, and the seconds from the first chunk to the end: the SDK's
    per-chunk work only (the request and the connection come before the first chunk)."""
    chunks = [await stream.__anext__()]
    started = time.perf_counter()
    async for chunk in stream:
        chunks.append(chunk)
    return chunks, time.perf_counter() - started


async def _chat_chunks(body: bytes) -> tuple[list[Any], float]:
    client = openai.AsyncOpenAI(
        api_key="k", base_url="http://provider/v1", http_client=_transport(body)
    )
    stream = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return await _drain(stream)


async def _responses_chunks(body: bytes) -> tuple[list[Any], float]:
    client = openai.AsyncOpenAI(
        api_key="k", base_url="http://provider/v1", http_client=_transport(body)
    )
    stream = await client.responses.create(model="m", input="hi", stream=True)
    return await _drain(stream)


async def _anthropic_chunks(body: bytes) -> tuple[list[Any], float]:
    client = anthropic.AsyncAnthropic(
        api_key="k", base_url="http://provider", http_client=_transport(body)
    )
    stream = await client.messages.create(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return await _drain(stream)


APIS: list[tuple[str, Callable[[int], bytes], Any, Callable[..., Any]]] = [
    ("OpenAI Chat Completions", chat_body, _chat_chunks, ChatCompletionsAdapter),
    ("OpenAI Responses", responses_body, _responses_chunks, ResponsesAdapter),
    ("Anthropic Messages", anthropic_body, _anthropic_chunks, AnthropicAdapter),
]


def _best(function: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def measure(
    name: str, make_body: Any, read: Any, adapter_class: Any, tokens: int, rounds: int
) -> dict[str, Any]:
    body = make_body(tokens)
    chunks: list[Any] = []
    sdk_seconds = float("inf")
    for _ in range(rounds):
        chunks, seconds = asyncio.run(read(body))
        sdk_seconds = min(sdk_seconds, seconds)
    sdk_per_chunk = sdk_seconds / (len(chunks) - 1)

    def adapt() -> None:
        adapter = adapter_class(message_id="msg-1")
        for chunk in chunks:
            adapter.feed(chunk)
        adapter.close()

    adapter_per_chunk = _best(adapt, rounds) / len(chunks)
    events = []
    adapter = adapter_class(message_id="msg-1")
    for chunk in chunks:
        events += adapter.feed(chunk)
    events += adapter.close()
    encoder = EventEncoder()
    run_input = RunAgentInput(thread_id="t", run_id="r", messages=[])

    def serve() -> None:
        guard = RunGuard(run_input, verifier=EventVerifier())
        for event in events:
            for admitted in guard.admit(event):
                encoder.encode_sse(admitted)

    server_per_token = _best(serve, rounds) / len(events)
    return {
        "api": name,
        "chunks": len(chunks),
        "sdk_us": sdk_per_chunk * 1e6,
        "adapter_us": adapter_per_chunk * 1e6,
        "ratio": adapter_per_chunk / sdk_per_chunk,
        "server_us": server_per_token * 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(
        f"openai {openai.__version__}, anthropic {anthropic.__version__}; "
        f"{args.tokens} tokens, best of {args.rounds}"
    )
    header = f"{'SDK per chunk':>15}{'adapter':>11}{'ratio':>9}{'guard+verify+SSE (ref.)':>28}"
    print(f"{'API':<26}{header}")
    for name, make_body, read, adapter_class in APIS:
        row = measure(name, make_body, read, adapter_class, args.tokens, args.rounds)
        print(
            f"{row['api']:<26}{row['sdk_us']:>12.2f} µs{row['adapter_us']:>8.2f} µs"
            f"{row['ratio']:>8.1%}{row['server_us']:>22.2f} µs"
        )


if __name__ == "__main__":
    main()
