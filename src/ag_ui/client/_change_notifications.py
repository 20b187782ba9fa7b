"""Change notifications for direct edits: ``add_message(s)``, ``set_messages``, ``set_state``.

The sequence is the TypeScript client's (``AbstractAgent.addMessage`` and friends in
``@ag-ui/client@1.0.0``): for each added message ``on_new_message``, then ``on_new_tool_call``
for each tool call of an assistant message, and finally one ``on_messages_changed``;
``set_messages`` fires ``on_messages_changed`` and ``set_state`` ``on_state_changed``. Only the
agent's own subscribers are told, one after the other in registration order, and a callback's
awaitable is awaited before the next callback starts. Return values are ignored (these are
notifications, not mutations) and ``params.input`` is ``None``: there is no run.

A callback that raises ends the sequence, as in TypeScript, where the remaining callbacks are
skipped and the error surfaces as an unhandled rejection. Here it is never swallowed:

* while every callback is synchronous, everything runs before the edit method returns and the
  exception propagates from it (the edit itself is already made);
* at the first awaitable, inside a running asyncio loop, the rest continues as a task on that
  loop (the edit method cannot block a loop it runs on); a failure there goes to the loop's
  exception handler, asyncio's channel for errors nobody awaits, and
  ``HttpAgent.flush_notifications()`` waits for such tasks;
* at the first awaitable, with no running loop (a plain script), the rest is run to completion
  on a temporary event loop before the method returns, so nothing is left un-awaited and the
  exception propagates as in the synchronous case.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Iterator, Sequence
from typing import Any, Callable, Optional

from ag_ui.client._subscribers import AgentView, SubscriberParams
from ag_ui.core.types import Message

__all__ = [
    "Notification",
    "added_messages_notifications",
    "deliver",
    "flush",
    "messages_set_notifications",
    "state_set_notifications",
]

Notification = tuple[str, SubscriberParams]
"""A callback name and what every subscriber's callback of that name is given."""

_Step = tuple[Callable[[SubscriberParams], Any], SubscriberParams]


def added_messages_notifications(agent: AgentView, added: Sequence[Message]) -> list[Notification]:
    notifications: list[Notification] = []
    for message in added:
        notifications.append(("on_new_message", SubscriberParams(agent, message=message)))
        if message.role == "assistant":
            for call in message.tool_calls or ():
                notifications.append(("on_new_tool_call", SubscriberParams(agent, tool_call=call)))
    notifications.append(("on_messages_changed", SubscriberParams(agent)))
    return notifications


def messages_set_notifications(agent: AgentView) -> list[Notification]:
    return [("on_messages_changed", SubscriberParams(agent))]


def state_set_notifications(agent: AgentView) -> list[Notification]:
    return [("on_state_changed", SubscriberParams(agent))]


def _steps(subscribers: Sequence[object], notifications: Sequence[Notification]) -> Iterator[_Step]:
    for name, params in notifications:
        for subscriber in subscribers:
            callback = getattr(subscriber, name, None)
            if callback is not None:
                yield callback, params


async def _finish(pending: Awaitable[Any], rest: Iterator[_Step]) -> None:
    await pending
    for callback, params in rest:
        result = callback(params)
        if inspect.isawaitable(result):
            await result


def _report_failure(
    tasks: set[asyncio.Task[None]], pending: Awaitable[Any], task: asyncio.Task[None]
) -> None:
    tasks.discard(task)
    if task.cancelled():
        # Cancelled before it started (the loop shut down first): the callback's coroutine was
        # never awaited and would warn about it when collected.
        if inspect.iscoroutine(pending) and inspect.getcoroutinestate(pending) == "CORO_CREATED":
            pending.close()
        return
    error = task.exception()  # retrieved here, so asyncio does not also warn at collection
    if error is not None:
        task.get_loop().call_exception_handler(
            {
                "message": "an ag_ui.client change notification callback raised; "
                "the remaining notifications of that edit were skipped",
                "exception": error,
                "task": task,
            }
        )


def deliver(
    subscribers: Sequence[object],
    notifications: Sequence[Notification],
    background: set[asyncio.Task[None]],
) -> None:
    """Call the callbacks for ``notifications`` (see the module docstring for the rules);
    ``background`` keeps the tasks that finish on a running loop (and alive until done)."""
    steps = _steps(list(subscribers), notifications)
    for callback, params in steps:
        result = callback(params)
        if not inspect.isawaitable(result):
            continue
        try:
            loop: Optional[asyncio.AbstractEventLoop] = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            asyncio.run(_finish(result, steps))
            return
        task = loop.create_task(_finish(result, steps))
        background.add(task)
        task.add_done_callback(functools.partial(_report_failure, background, result))
        return


async def flush(background: set[asyncio.Task[None]]) -> None:
    """Wait until the notifications still running on this loop are done (their failures were
    already reported to the loop's exception handler)."""
    while pending := [task for task in background if not task.done()]:
        await asyncio.wait(pending)
