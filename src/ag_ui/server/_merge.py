"""The merge rule: a run request completed from its stored thread (docs/threads.md).

* Messages: a request that carries none of the stored messages (by id) sends only new ones:
  they follow the stored history. A request that carries any of them holds the conversation,
  and its list is the history (a "regenerate" cuts it). Two exceptions keep that from losing
  anything by accident:

  - a message the client wrote (``user``, ``system``, ``developer``) sent under a stored id
    with other content, or any message under a stored id with another role, is not an edit
    but a collision (a client that numbers its messages from 1 on every run): the request is
    refused with 409 ``message_id_conflict`` naming the id, and nothing is cut;
  - a client that sends no ``activity`` messages (``HttpAgent``: they are client-only) keeps
    the stored ones where they were, unless its list was cut before them.

* State: the request's, unless it is absent or ``{}``; then the stored state.

What the merge added and the client did not send, the client is sent before the agent's first
event (``Merged.catch_up``): a ``MESSAGES_SNAPSHOT`` when it lacks stored messages (after an
empty one, which puts its own new messages after the stored ones), a
``STATE_SNAPSHOT`` when the state came from the store. A client then reduces the run's events
against exactly what the agent saw (``STATE_DELTA``s apply, the stored history shows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Optional

from ag_ui.core.events import Event, MessagesSnapshotEvent, StateSnapshotEvent
from ag_ui.core.types import Message, RunAgentInput
from ag_ui.server._failures import message_id_conflict
from ag_ui.store._thread_base import INCOMPLETE_KEY, StoredThread

__all__ = ["Merged", "merge_history", "merge_thread"]

_AUTHORED = ("user", "system", "developer")
"""Roles whose content only the client writes: the same id with other content is a collision."""


@dataclass(frozen=True)
class Merged:
    """The run input the agent gets, and the events its client needs first."""

    run_input: RunAgentInput
    catch_up: tuple[Event, ...] = ()


def merge_history(stored: Optional[StoredThread], run_input: RunAgentInput) -> RunAgentInput:
    """The run input the agent gets (``merge_thread(...).run_input``)."""
    return merge_thread(stored, run_input).run_input


def merge_thread(stored: Optional[StoredThread], run_input: RunAgentInput) -> Merged:
    """The request completed from ``stored`` (see module); raises the 409
    ``RequestRejectedError`` ``message_id_conflict`` for a colliding message id."""
    if stored is None:
        return Merged(run_input)
    stored_by_id = {message.id: message for message in stored.messages}
    carried = [message for message in run_input.messages if message.id in stored_by_id]
    catch_up: list[Event] = []
    messages: list[Message]
    if carried:
        for message in carried:
            _check_same(stored_by_id[message.id], message, stored.thread_id)
        messages = _kept_marks(stored_by_id, run_input.messages)
        messages = _with_stored_activity(stored.messages, messages)
    else:
        messages = [*stored.messages, *run_input.messages]
        if stored.messages:
            if run_input.messages:
                # A snapshot keeps the messages a client holds where they are and appends the
                # others: an empty one first, so that the client's new messages follow the
                # stored history, in the stored order (the next request sends it in that order).
                catch_up.append(MessagesSnapshotEvent(messages=[]))
            catch_up.append(MessagesSnapshotEvent(messages=list(messages)))
    state = run_input.state
    if state is None or state == {}:
        state = stored.state
        if state is not None and state != {}:
            catch_up.append(StateSnapshotEvent(snapshot=state))
    if messages is run_input.messages and state is run_input.state:
        return Merged(run_input, tuple(catch_up))
    merged = run_input.model_copy(update={"messages": messages, "state": state})
    return Merged(merged, tuple(catch_up))


def _check_same(stored: Message, sent: Message, thread_id: str) -> None:
    if sent.role != stored.role:
        raise message_id_conflict(sent.id, thread_id, f"a stored {stored.role} message")
    if sent.role in _AUTHORED and _content(sent) != _content(stored):
        raise message_id_conflict(sent.id, thread_id, "a stored message with other content")


def _content(message: Message) -> Any:
    content = getattr(message, "content", None)
    if isinstance(content, list):
        return [part.model_dump(mode="json") for part in content]
    return content


def _kept_marks(stored_by_id: dict[str, Message], sent: list[Message]) -> list[Message]:
    """``sent`` with the stored copy of each message the server marked incomplete (a cancelled
    run's half reply) that the client sent back unchanged without the mark."""
    replaced: Optional[list[Message]] = None
    for index, message in enumerate(sent):
        kept = stored_by_id.get(message.id)
        if (
            kept is not None
            and kept is not message
            and INCOMPLETE_KEY in (kept.metadata or {})
            and INCOMPLETE_KEY not in (message.metadata or {})
            and _content(kept) == _content(message)
        ):
            if replaced is None:
                replaced = list(sent)
            replaced[index] = kept
    return sent if replaced is None else replaced


def _with_stored_activity(stored: Sequence[Message], sent: list[Message]) -> list[Message]:
    """``sent`` with the stored activity messages it lacks put back where they were: before
    the stored message that followed them, when ``sent`` carries it (or, after the thread's
    last message, when ``sent`` carries that one). A client that sends activity messages
    manages them itself."""
    if any(message.role == "activity" for message in sent):
        return sent
    sent_ids = {message.id for message in sent}
    before: dict[str, list[Message]] = {}
    pending: list[Message] = []
    last: Optional[str] = None
    for message in stored:
        if message.role == "activity":
            if message.id not in sent_ids:
                pending.append(message)
        else:
            if pending:
                before[message.id] = pending
                pending = []
            last = message.id
    trailing = pending
    if not before and not trailing:
        return sent
    merged: list[Message] = [] if last is not None else list(trailing)
    for message in sent:
        merged += before.get(message.id, ())
        merged.append(message)
        if message.id == last:
            merged += trailing
    return merged
