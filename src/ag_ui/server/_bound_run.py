"""A run bound to its request: the agent runs as the producer of its own response (no run
store), and the client leaving cancels it. Its twin, the detached run, is ``_detached``.

Each guarded event is encoded and put as it comes (no store, no batching); with telemetry on,
the run's spans see what the client is sent (``RunTelemetry.observe``, called by the encoding
sink itself for a 1.0 client), and a thread recorder saves the conversation before the
terminal event goes out.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Optional

import anyio
from starlette.requests import Request

from ag_ui.core.events import BaseEvent
from ag_ui.core.types import RunAgentInput
from ag_ui.encoder import EventEncoder
from ag_ui.server._downgrade import downgrading_sink
from ag_ui.server._guard import RunGuard
from ag_ui.server._response import Producer, Put
from ag_ui.server._runner import Agent, run_agent
from ag_ui.server._threads import ThreadRecorder
from ag_ui.server._time_limit import run_within

if TYPE_CHECKING:
    from ag_ui.telemetry._run import RunTelemetry

__all__ = ["bound_run"]


def bound_run(
    agent: Agent,
    run_input: RunAgentInput,
    encoder: EventEncoder,
    *,
    verify: bool,
    debug: bool,
    auth: Any,
    request: Request,
    downgrade: bool,
    run_timeout: Optional[float],
    recorder: Optional[ThreadRecorder],
    spans: Optional[RunTelemetry],
) -> Producer:
    """The run as the producer of its own response: each guarded event is encoded and put
    as it comes (no store, no batching)."""
    encode = encoder.encode_binary if encoder.is_protobuf else encoder.encode_sse

    async def produce(put: Put) -> None:
        async def encoding_sink(events: list[BaseEvent]) -> None:
            for event in events:
                await put(encode(event))

        sink = downgrading_sink(encoding_sink, run_input, enabled=downgrade)
        if spans is not None:  # sees what the client is sent, before any downgrade
            if sink is encoding_sink:  # a 1.0 client: observed in the encoding sink itself
                observe = spans.observe

                async def observed_encoding_sink(events: list[BaseEvent]) -> None:
                    # One coroutine call per event less than a wrapper around the sink.
                    observe(events)
                    for event in events:
                        await put(encode(event))

                sink = observed_encoding_sink
            else:
                sink = spans.wrap(sink)
        if recorder is not None:
            sink = recorder.wrap(sink)
        guard = RunGuard(run_input, verify=verify)
        run = functools.partial(
            run_agent,
            agent,
            run_input,
            sink,
            verify=verify,
            debug=debug,
            auth=auth,
            request=request,
            guard=guard,
        )
        left = False
        try:
            if spans is not None:
                with spans.activate():
                    if run_timeout is None:
                        await run()  # (one frame less to resume, as below)
                    else:
                        await run_within(run_timeout, run, guard, sink, name=run_input.run_id)
            elif run_timeout is None:
                await run()  # one frame less for the loop to resume each time the agent awaits
            else:
                await run_within(run_timeout, run, guard, sink, name=run_input.run_id)
        except anyio.get_cancelled_exc_class():
            left = True  # the client left (or the server is shutting down)
            raise
        finally:
            if recorder is not None:
                await recorder.close()
            if spans is not None:
                spans.close(disconnected=left)

    return produce
