"""``connect_agent``: attach to a detached run or a thread's history (docs/resume.md)."""

from __future__ import annotations

from typing import Any, Optional

from ag_ui.client.event_stream import AgentEventStream
from ag_ui.client.result import RunAgentResult

__all__ = ["ConnectMixin"]


class ConnectMixin:
    """``HttpAgent``'s connect methods (the processing is the run's, through ``_run``)."""

    thread_id: str

    async def connect_agent(
        self,
        *,
        last_event_id: Optional[str] = None,
        run_key: Optional[str] = None,
        thread_id: Optional[str] = None,
        subscriber: Any = None,
    ) -> RunAgentResult:
        """Attach to a detached run (running or finished) and process its events like a run.

        ``last_event_id`` (``"<resume key>:<position>"``) resumes after that event; ``run_key``
        reads the run from its start; with neither, the thread's stored history arrives
        compacted (``thread_id`` defaults to the agent's), then whatever is still running.
        Joining in the middle of a run skips the client's sequence verifier (it would miss
        the run's opening events; the server's guard verified them).
        ``GET <url>/connect`` (docs/resume.md); no middleware, as in TypeScript.
        """
        events = self.stream_connect(
            last_event_id=last_event_id,
            run_key=run_key,
            thread_id=thread_id,
            subscriber=subscriber,
        )
        async with events:
            async for _ in events:
                pass
        assert events.result is not None
        return events.result

    def stream_connect(
        self,
        *,
        last_event_id: Optional[str] = None,
        run_key: Optional[str] = None,
        thread_id: Optional[str] = None,
        subscriber: Any = None,
    ) -> AgentEventStream:
        """``connect_agent`` as an ``AgentEventStream`` of processed events."""
        if last_event_id is not None:
            target = {"lastEventId": last_event_id}
        elif run_key is not None:
            target = {"runKey": run_key}
        else:
            target = {"threadId": thread_id or self.thread_id}
        return AgentEventStream(self, {"connect": target}, subscriber)
