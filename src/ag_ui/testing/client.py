"""``AgentClient``: run an agent (an ASGI app in process, or a URL) and get everything back.

``await client.run("hello")`` sends one ``RunAgentInput`` and returns a ``RunResult`` with the
events as received, their arrival times and SSE ids, the messages and state the reducer built
from them, and the stream's grade (``verification``: strict verifier, tool-argument JSON, state
patches). It never raises for what the agent sent, so a test can assert on it with a readable
message (``ag_ui.testing.assertions``). In process no socket is opened: the app is called
through ``ASGIStreamTransport``, which streams.

>>> from ag_ui.server import create_app
>>> async def agent(run_input, ctx):
...     await ctx.say("Hello!")
>>> client = AgentClient(create_app(agent))
>>> result = client.run_sync("hi")
>>> result.text, result.verification.ok
('Hello!', True)
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any, Optional, Union

import anyio
import httpx

from ag_ui.core._wire import AGUI_MEDIA_TYPE, SSE_MEDIA_TYPE
from ag_ui.core.capabilities import AgentCapabilities
from ag_ui.core.errors import TransportError
from ag_ui.core.types import RunAgentInput
from ag_ui.testing._asgi import ASGIApp, ASGIStreamTransport, Lifespan
from ag_ui.testing._bounds import BodyReader, ReadBounds, no_answer, release_cut_response
from ag_ui.testing._decoding import StreamDecoder, Undecodable, is_event_stream
from ag_ui.testing._fault_plan import Fault
from ag_ui.testing.conversation import Conversation
from ag_ui.testing.faults import FaultyTransport
from ag_ui.testing.grading import StreamGrader
from ag_ui.testing.inputs import build_input
from ag_ui.testing.result import RunResult

__all__ = ["AgentClient"]

SSE_ACCEPT = SSE_MEDIA_TYPE
PROTO_ACCEPT = f"{AGUI_MEDIA_TYPE}, {SSE_MEDIA_TYPE};q=0.5"
IN_PROCESS_BASE = "http://testserver"


class AgentClient:
    """A client for one agent endpoint, made for tests and graders.

    Give an ASGI ``app`` (called in process; ``path`` is where the agent is mounted, default
    ``/agent``) or a ``url`` (a live server). ``faults`` damage every event-stream response on
    the way in (``ag_ui.testing.faults``); ``transport`` replaces the httpx transport entirely.
    ``idle_timeout`` bounds the wait for the response headers (``wire.no-answer``) and the
    silence between two reads of a stream (``wire.idle``): findings, not exceptions;
    ``timeout`` bounds connecting and sending. ``max_seconds`` bounds one response from request
    to end (``wire.endless``), ``max_bytes`` and ``max_events`` what is read of one response
    (``wire.too-large``); all three are off by default. An SSE stream that is not UTF-8 is a
    ``wire.utf8`` finding. ``strict_end``
    (default on) grades a stream that stops inside a run as an error (rule ``END``).

    Use ``async with AgentClient(app) as client:`` to keep one connection pool (and the app's
    lifespan) for several runs; without it each call opens and closes its own.
    """

    def __init__(
        self,
        app: Optional[ASGIApp] = None,
        *,
        url: Optional[str] = None,
        path: str = "/agent",
        transport: Optional[httpx.AsyncBaseTransport] = None,
        faults: Sequence[Fault] = (),
        headers: Optional[Mapping[str, str]] = None,
        timeout: float = 30.0,
        idle_timeout: Optional[float] = 30.0,
        strict_end: bool = True,
        lifespan: Lifespan = "auto",
        strict_draft: bool = False,
        max_seconds: Optional[float] = None,
        max_bytes: Optional[int] = None,
        max_events: Optional[int] = None,
    ) -> None:
        if (app is None) == (url is None):
            raise TypeError("AgentClient needs an ASGI app or url=, not both")
        self.url = url if url is not None else IN_PROCESS_BASE + "/" + path.lstrip("/")
        if transport is None:
            transport = (
                ASGIStreamTransport(app, lifespan=lifespan)
                if app is not None
                else httpx.AsyncHTTPTransport()
            )
        if faults:
            transport = FaultyTransport(transport, *faults)
        self.transport = transport
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.bounds = ReadBounds(idle_timeout, max_seconds, max_bytes, max_events)
        self.strict_end = strict_end
        self.strict_draft = strict_draft  # the draft specification's rules are findings too
        self._http: Optional[httpx.AsyncClient] = None

    # -- resources ------------------------------------------------------------------------------

    def _new_http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=self.transport, timeout=httpx.Timeout(self.timeout, read=None)
        )

    async def __aenter__(self) -> AgentClient:
        if self._http is not None:
            raise RuntimeError("this AgentClient is already open")
        http = self._new_http()
        await http.__aenter__()
        self._http = http
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        http, self._http = self._http, None
        if http is not None:
            await http.__aexit__(*exc_info)

    @asynccontextmanager
    async def _session(self) -> AsyncIterator[httpx.AsyncClient]:
        if self._http is not None:
            yield self._http
            return
        async with self._new_http() as http:
            yield http

    def _url(self, suffix: str = "") -> str:
        """The agent URL, or ``<agent path><suffix>`` with the same query (a token in the query
        string stays)."""
        if not suffix:
            return self.url
        url = httpx.URL(self.url)
        return str(url.copy_with(path=url.path.rstrip("/") + suffix))

    # -- runs -----------------------------------------------------------------------------------

    async def run(
        self,
        message: Optional[str] = None,
        *,
        input: Optional[RunAgentInput] = None,
        proto: bool = False,
        headers: Optional[Mapping[str, str]] = None,
        stop_after: Optional[int] = None,
        **fields: Any,
    ) -> RunResult:
        """Run the agent once: ``message`` as a new user message after ``messages=``, with
        ``state=``, ``tools=``, ``context=``, ``forwarded_props=``, ``resume=``, ``thread_id=``,
        ``run_id=`` (see ``build_input``), or a ready ``input``. ``proto`` asks for protobuf.
        ``stop_after=N`` closes the connection once N events arrived (``cancelled``)."""
        if input is None:
            input = build_input(message, **fields)
        elif message is not None or fields:
            raise TypeError("pass either input= or message/fields, not both")
        body = input.model_dump_json(by_alias=True).encode()
        return await self._exchange(
            "POST",
            self._url(),
            content=body,
            headers={"content-type": "application/json", **dict(headers or {})},
            proto=proto,
            input=input,
            stop_after=stop_after,
        )

    def run_sync(self, message: Optional[str] = None, **options: Any) -> RunResult:
        """``run`` from synchronous code (starts an event loop; not from inside one)."""
        result: RunResult = anyio.run(functools.partial(self.run, message, **options))
        return result

    async def post(
        self,
        body: Union[bytes, str, Mapping[str, Any], Sequence[Any]],
        *,
        content_type: str = "application/json",
        method: str = "POST",
        headers: Optional[Mapping[str, str]] = None,
        proto: bool = False,
    ) -> RunResult:
        """Send any body (malformed ones too): bytes/str as is, anything else as JSON. A
        streamed answer is graded like a run's; an error answer is in ``body``/``json()``."""
        if isinstance(body, str):
            content = body.encode()
        elif isinstance(body, bytes):
            content = body
        else:
            import json

            content = json.dumps(body).encode()
        return await self._exchange(
            method,
            self._url(),
            content=content,
            headers={"content-type": content_type, **dict(headers or {})},
            proto=proto,
            input=None,
            stop_after=None,
        )

    async def reconnect(
        self, interrupted: RunResult, *, last_event_id: Optional[str] = None
    ) -> RunResult:
        """Reattach to a detached run after ``interrupted`` lost its connection: ``GET
        <url>/connect`` with ``Last-Event-ID`` (docs/resume.md). The result holds the whole
        run, the events before the reconnect and those after (from ``resumed_at``), graded as
        one stream."""
        event_id = last_event_id or interrupted.last_event_id
        if event_id is None:
            raise ValueError("the interrupted run carried no SSE id: nothing to reconnect from")
        headers: dict[str, str] = {"last-event-id": event_id}
        params = {"lastEventId": event_id} if interrupted.proto else None
        return await self._exchange(
            "GET",
            self._url("/connect"),
            content=None,
            headers=headers,
            proto=interrupted.proto,
            input=interrupted.input,
            stop_after=None,
            before=interrupted,
            params=params,
        )

    async def request(self, method: str, suffix: str = "", **options: Any) -> httpx.Response:
        """A plain (non-streamed) request to ``<url><suffix>``: ``("GET", "/capabilities")``."""
        url = self._url(suffix)
        async with self._session() as http:
            request = http.build_request(
                method, url, headers={**self.headers, **options.pop("headers", {})}, **options
            )
            try:
                response = await self._send(http, request)
                if response is None:
                    raise TransportError(f"{method} {url} failed: {no_answer(self.bounds).message}")
                try:
                    reader = BodyReader(self.bounds, anyio.current_time())
                    body = bytearray()
                    chunks = response.aiter_bytes().__aiter__()
                    while (chunk := await reader.next_chunk(chunks)) is not None:
                        body += chunk
                finally:
                    await response.aclose()
            except httpx.TransportError as exc:
                raise TransportError(f"{method} {url} failed: {exc!r}") from exc
        if reader.broken is not None:
            raise TransportError(f"{method} {url} failed: {reader.broken.message}")
        headers = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
        ]
        return httpx.Response(
            response.status_code, headers=headers, content=bytes(body), request=request
        )

    async def _send(
        self, http: httpx.AsyncClient, request: httpx.Request
    ) -> Optional[httpx.Response]:
        """The response, its body unread; ``None`` when no answer came within the bounds."""
        with anyio.move_on_after(self.bounds.header_wait()):
            return await http.send(request, stream=True)
        return None

    async def capabilities(self) -> Optional[AgentCapabilities]:
        """``GET <url>/capabilities``: the capabilities, or ``None`` on 404."""
        response = await self.request("GET", "/capabilities")
        if response.status_code == 404:
            return None
        response.raise_for_status()
        return AgentCapabilities.model_validate_json(response.content)

    def conversation(self, **fields: Any) -> Conversation:
        """A multi-turn conversation on one thread (see ``Conversation``)."""
        return Conversation(self, **fields)

    # -- the exchange ---------------------------------------------------------------------------

    async def _exchange(
        self,
        method: str,
        url: str,
        *,
        content: Optional[bytes],
        headers: Mapping[str, str],
        proto: bool,
        input: Optional[RunAgentInput],
        stop_after: Optional[int],
        before: Optional[RunResult] = None,
        params: Optional[Mapping[str, str]] = None,
    ) -> RunResult:
        request_headers = {
            **self.headers,
            **headers,
            "accept": PROTO_ACCEPT if proto else SSE_ACCEPT,
        }
        async with self._session() as http:
            request = http.build_request(
                method, url, content=content, headers=request_headers, params=params
            )
            started = anyio.current_time()
            try:
                response = await self._send(http, request)
            except httpx.TransportError as exc:
                raise TransportError(f"{method} {url} failed: {type(exc).__name__}: {exc}") from exc
            if response is None:
                result = RunResult(input=input, status=0, headers=httpx.Headers(), url=url)
                grader = StreamGrader(strict_end=False, strict_draft=self.strict_draft)
                broken = no_answer(self.bounds)
                grader.failed(broken.rule, broken.message)
                return self._finish(result, grader)
            try:
                return await self._read(response, input, started, stop_after, before, url)
            finally:
                await response.aclose()

    async def _read(
        self,
        response: httpx.Response,
        input: Optional[RunAgentInput],
        started: float,
        stop_after: Optional[int],
        before: Optional[RunResult],
        url: str,
    ) -> RunResult:
        result = RunResult(
            input=input, status=response.status_code, headers=response.headers, url=url
        )
        strict_end = self.strict_end and stop_after is None
        draft = self.strict_draft
        grader = (
            StreamGrader(
                messages=input.messages,
                state=input.state,
                strict_end=strict_end,
                strict_draft=draft,
                tools=input.tools,
            )
            if input is not None
            else StreamGrader(strict_end=strict_end, strict_draft=draft)
        )
        if before is not None:
            result.events = list(before.events)
            result.times = list(before.times)
            result.sse_ids = list(before.sse_ids)
            result.resumed_at = len(before.events)
            for event in before.events:
                grader.feed(event)
        content_type = response.headers.get("content-type")
        streaming = is_event_stream(content_type)
        chunks = response.aiter_raw().__aiter__()
        reader = BodyReader(self.bounds, started, utf8=streaming and "proto" not in content_type)
        if not response.is_success or not streaming:
            body = bytearray()
            while (chunk := await reader.next_chunk(chunks)) is not None:
                body += chunk
            result.body = bytes(body)
            if reader.broken is not None:
                grader.failed(reader.broken.rule, reader.broken.message)
                return self._finish(result, grader)
            if input is not None and not response.is_success:
                grader.failed(
                    "http.status", f"HTTP {response.status_code}: {_snippet(result.body)}"
                )
            elif response.is_success:
                grader.failed(
                    "wire.content-type",
                    f"answered {content_type or 'no Content-Type'} instead of an event stream: "
                    f"{_snippet(result.body)}",
                )
            return self._finish(result, grader)
        decoder = StreamDecoder(content_type)
        raw = bytearray()
        try:
            while True:
                chunk = await reader.next_chunk(chunks)
                if reader.broken is not None or reader.too_many_events(len(result.events)):
                    broken = reader.broken
                    assert broken is not None
                    grader.failed(broken.rule, f"{broken.message} (events: {len(result.events)})")
                    break
                at = anyio.current_time() - started
                decoded = decoder.close() if chunk is None else decoder.feed(chunk)
                if chunk is not None:
                    raw += chunk
                for item in decoded:
                    if item.event is None:
                        grader.skipped(f"frame {item.index}: {item.skipped}", item.index)
                        continue
                    result.events.append(item.event)
                    result.times.append(at)
                    result.sse_ids.append(item.sse_id)
                    grader.feed(item.event)
                if chunk is None:
                    break
                if stop_after is not None and len(result.events) >= stop_after:
                    result.cancelled = True
                    break
        except Undecodable as exc:
            grader.decode_failed(exc, exc.rule)
        except httpx.TransportError as exc:
            if result.terminal is None:
                grader.failed(
                    "wire.cut",
                    f"the connection broke after {len(result.events)} events "
                    f"({type(exc).__name__}: {exc})",
                    exc,
                )
        result.body = bytes(raw)
        self._finish(result, grader)
        if reader.broken is not None:
            release_cut_response(result, reader.broken)
        return result

    def _finish(self, result: RunResult, grader: StreamGrader) -> RunResult:
        result.verification = grader.finish()
        result.agent_state = grader.agent_state
        return result


def _snippet(body: bytes, limit: int = 200) -> str:
    text = body.decode("utf-8", "replace")
    return text if len(text) <= limit else text[: limit - 3] + "..."
