"""``POST <path>``: one run request. The request is checked (method, access, content type,
size, body deadline), its body parsed into a ``RunAgentInput``, completed from the caller's
stored thread when the endpoint keeps threads, and the run started: bound to the request
(``_bound_run``: the client leaving cancels it) or, with a run store, detached (``_detached``:
registered under a fresh unguessable key, the response reads it as it is stored). Then its
events are streamed (``_response``).

It reads the endpoint's options at each request (``RunSettings``: what ``AgentEndpoint`` has).
"""

from __future__ import annotations

import functools
import logging
import secrets
from typing import TYPE_CHECKING, Any, Optional, Protocol

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ag_ui.core.errors import (
    AGUIValidationError,
    RequestRejectedError,
    StoreFullError,
    StoreUnavailableError,
)
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server._access import AccessControl
from ag_ui.server._asgi import read_body, send_error
from ag_ui.server._bound_run import bound_run
from ag_ui.server._detached import DetachedRuns, run_detached
from ag_ui.server._failures import (
    lifespan_not_run,
    runs_not_started,
    store_full,
    store_unavailable,
    thread_store_unavailable,
)
from ag_ui.server._release import release
from ag_ui.server._replay import RESUME_AFTER_HEADER, RESUME_KEY_HEADER, live_frames
from ag_ui.server._request import (
    check_content_type,
    check_declared_size,
    check_method,
    rejection_for,
)
from ag_ui.server._response import pump, stream_response
from ag_ui.server._runner import Agent
from ag_ui.server._sliced_parse import parse_run_input
from ag_ui.server._store_writer import LiveFeed, StoreWriter
from ag_ui.server._tap import Tap
from ag_ui.server._threads import ThreadKeeper, ThreadRecorder
from ag_ui.store import RunStore
from ag_ui.telemetry import _switch as telemetry_switch
from ag_ui.telemetry._propagation import TRACE_ID_HEADER, key_with_span

if TYPE_CHECKING:
    from ag_ui.telemetry._run import RunTelemetry

__all__ = ["RunSettings", "serve_run"]

logger = logging.getLogger("ag_ui.server")


class RunSettings(Protocol):
    """What a run request reads from its endpoint (``AgentEndpoint``'s options, documented
    there, and the state it keeps for its runs)."""

    agent: Agent
    agent_name: str
    verify: bool
    debug: bool
    keepalive: Optional[float]
    max_body_size: int
    body_timeout: Optional[float]
    max_messages: Optional[int]
    access: AccessControl
    store: Optional[RunStore]
    run_ttl: float
    run_timeout: Optional[float]
    downgrade_older_clients: bool
    tap: Optional[Tap]
    thread_keeper: Optional[ThreadKeeper]
    detached_runs: DetachedRuns
    draining: bool


async def serve_run(endpoint: RunSettings, scope: Scope, receive: Receive, send: Send) -> None:
    """``POST``: check the request, run the agent, stream its events."""
    if endpoint.tap is not None:
        receive, send = endpoint.tap.observe(scope, receive, send)
    request = Request(scope)
    try:
        check_method(request.method, "POST")
        auth = await endpoint.access.authorize(request)
        check_content_type(request.headers.get("content-type"))
        check_declared_size(request.headers, endpoint.max_body_size)
        body = await read_body(receive, endpoint.max_body_size, endpoint.body_timeout)
        if body is None:
            return  # the client left while sending
        try:
            run_input = await parse_run_input(body, max_messages=endpoint.max_messages)
        except AGUIValidationError as exc:
            raise rejection_for(exc) from None
        del body  # a large body is not kept for the length of the run
        encoder = EventEncoder(accept=request.headers.get("accept"))
        recorder: Optional[ThreadRecorder] = None
        if endpoint.thread_keeper is not None:
            run_input, recorder = await _thread_of(endpoint, run_input, auth)
        telemetry = telemetry_switch.current
        spans: Optional[RunTelemetry] = None
        if telemetry is not None:
            spans = telemetry.start_run(
                agent_name=endpoint.agent_name,
                thread_id=run_input.thread_id,
                run_id=run_input.run_id,
                headers=request.headers,
                detached=endpoint.store is not None,
            )
        if endpoint.store is not None:
            try:
                key, feed = await _create_detached(
                    endpoint,
                    endpoint.store,
                    request,
                    run_input,
                    auth,
                    recorder,
                    spans,
                    protobuf=encoder.is_protobuf,
                )
            except RequestRejectedError as rejection:
                if spans is not None:
                    spans.refused(rejection.code, rejection.message)
                raise
    except RequestRejectedError as rejection:
        await send_error(send, rejection)
        return
    if endpoint.store is not None:
        # Detached: the run goes on without this response, which reads it as it is stored.
        produce = pump(live_frames(feed, endpoint.store, key, encoder))
        headers = {RESUME_KEY_HEADER: key, RESUME_AFTER_HEADER: "0"}
    else:
        # Bound to the request: the client leaving cancels the agent.
        produce = bound_run(
            endpoint.agent,
            run_input,
            encoder,
            verify=endpoint.verify,
            debug=endpoint.debug,
            auth=auth,
            request=request,
            downgrade=endpoint.downgrade_older_clients,
            run_timeout=endpoint.run_timeout,
            recorder=recorder,
            spans=spans,
        )
        headers = {}
    if spans is None:
        await stream_response(
            receive, send, produce, encoder=encoder, keepalive=endpoint.keepalive, headers=headers
        )
    else:
        assert telemetry is not None
        headers[TRACE_ID_HEADER] = spans.trace_id
        telemetry.streams(1)
        try:
            await stream_response(
                receive,
                send,
                produce,
                encoder=encoder,
                keepalive=endpoint.keepalive,
                headers=headers,
            )
        finally:
            telemetry.streams(-1)
            if endpoint.store is None:  # a response that ended before its run began (no-op
                spans.close()  # once the run closed it); a detached run closes its own
    # This request's hold on the run input ends: a large input is freed in slices by its
    # last holder (``_release``; for a detached run, this request or the run's task).
    held = [run_input.messages]
    del run_input, produce
    await release(held)


async def _thread_of(
    endpoint: RunSettings, run_input: RunAgentInput, auth: Any
) -> tuple[RunAgentInput, Optional[ThreadRecorder]]:
    """The run input completed from the caller's stored thread, and its recorder."""
    assert endpoint.thread_keeper is not None
    try:
        return await endpoint.thread_keeper.prepare(run_input, endpoint.access.owner(auth))
    except StoreUnavailableError as exc:
        logger.error("thread store unreachable, run refused: %s", exc)
        raise thread_store_unavailable() from None


async def _create_detached(
    endpoint: RunSettings,
    store: RunStore,
    request: Request,
    run_input: RunAgentInput,
    auth: Any,
    recorder: Optional[ThreadRecorder],
    spans: Optional[RunTelemetry],
    *,
    protobuf: bool,
) -> tuple[str, LiveFeed]:
    """Register the run under a fresh unguessable key and start it; returns the key and
    a feed of its events as they are stored (for this request's response; ``protobuf``:
    the feed carries the models, which protobuf frames are made from)."""
    if endpoint.draining or not endpoint.detached_runs.running:
        if endpoint.detached_runs.served:
            raise runs_not_started()  # the app is shutting down
        rejection = lifespan_not_run()
        logger.error("run refused: %s", rejection.message)
        raise rejection
    # The key, not the client's runId, names the stored run: clients cannot pick or guess it.
    key = secrets.token_urlsafe(18)
    if spans is not None:  # readers on any worker continue the run's trace (_propagation)
        key = key_with_span(key, *spans.span_ids)
    try:
        await store.create(key, run_input.thread_id, owner=endpoint.access.owner(auth))
    except StoreFullError as exc:
        logger.warning("run store full, run refused: %s", exc)
        raise store_full() from None
    except StoreUnavailableError as exc:
        logger.error("run store unreachable, run refused: %s", exc)
        raise store_unavailable() from None
    writer = StoreWriter(store, key)
    feed = writer.attach(events=protobuf)
    endpoint.detached_runs.start(
        functools.partial(
            run_detached,
            store,
            key,
            writer,
            endpoint.agent,
            [run_input],  # taken out by the run, so that this partial does not keep it
            run_ttl=endpoint.run_ttl,
            verify=endpoint.verify,
            debug=endpoint.debug,
            auth=auth,
            request=request,
            downgrade=endpoint.downgrade_older_clients,
            recorder=recorder,
            spans=spans,
        )
    )
    return key, feed
