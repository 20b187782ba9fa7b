"""How runs and requests end when something goes wrong: one home for the stable codes.

* ``RUN_ERROR.code`` values the server itself sends (an agent's own ``RunError`` carries its
  own code; ``protocol_violation`` belongs to the guard, ``ag_ui.server._guard``);
* the ``RUN_ERROR`` a *reader* of a stored run sends when the store fails under it (not stored,
  so it carries no id);
* the HTTP rejections about runs and stores (the request checks, 400 to 415, are in
  ``_request``).

Everything here is data: no I/O, nothing to import but the core.
"""

from __future__ import annotations

from ag_ui.core.errors import HistoryTrimmedError, RequestRejectedError
from ag_ui.core.events import RunErrorEvent

__all__ = [
    "AGENT_ERROR_CODE",
    "HISTORY_TRIMMED_CODE",
    "RUN_ABANDONED_CODE",
    "RUN_EXPIRED_CODE",
    "SERVER_SHUTDOWN_CODE",
    "STORE_UNAVAILABLE_CODE",
    "history_trimmed",
    "invalid_thread_id",
    "lifespan_not_run",
    "message_id_conflict",
    "run_abandoned",
    "run_end_lost",
    "run_expired_while_read",
    "run_not_found",
    "runs_not_started",
    "store_full",
    "store_lost",
    "store_unavailable",
    "thread_history_not_public",
    "thread_not_found",
    "thread_run_expired",
    "thread_store_unavailable",
]

# -- RUN_ERROR codes -----------------------------------------------------------------------------

AGENT_ERROR_CODE = "agent_error"
"""``RUN_ERROR.code`` of an agent that raised (its text only with ``debug=True``)."""

RUN_EXPIRED_CODE = "run_expired"
"""``RUN_ERROR.code`` of a run stopped by its time limit (or dropped from the store)."""

SERVER_SHUTDOWN_CODE = "server_shutdown"
"""``RUN_ERROR.code`` of a run cancelled because the app shut down."""

STORE_UNAVAILABLE_CODE = "store_unavailable"
"""``RUN_ERROR.code`` a reader sends when the store (Redis) is lost mid-run; also the stored
end of a run whose events could not be stored."""

RUN_ABANDONED_CODE = "run_abandoned"
"""``RUN_ERROR.code`` a reader sends when the run's worker stopped (its heartbeat is stale)."""

HISTORY_TRIMMED_CODE = "history_trimmed"
"""``RUN_ERROR.code`` a reader sends when the events it asked for were trimmed."""

# -- what a reader of a stored run sends when the store fails under it ----------------------------


def store_lost(what: str = "run") -> RunErrorEvent:
    """The store became unreachable while ``what`` ("run", "thread") was being read."""
    return RunErrorEvent(
        message=f"The run store became unreachable; the rest of the {what} is lost.",
        code=STORE_UNAVAILABLE_CODE,
    )


def run_end_lost() -> RunErrorEvent:
    """A stored run is finished but its terminal event is not in the store."""
    return RunErrorEvent(
        message="The run ended without its terminal event; the run store lost the rest of it.",
        code=STORE_UNAVAILABLE_CODE,
    )


def run_abandoned() -> RunErrorEvent:
    """The run's worker stopped beating: it died, or shut down before recording the end."""
    return RunErrorEvent(
        message="The server running this run stopped before it ended; the run will not go on.",
        code=RUN_ABANDONED_CODE,
    )


def run_expired_while_read() -> RunErrorEvent:
    return RunErrorEvent(
        message="The run expired or was evicted while it was being read.", code=RUN_EXPIRED_CODE
    )


def thread_run_expired() -> RunErrorEvent:
    return RunErrorEvent(
        message="A run expired while the thread was being read.", code=RUN_EXPIRED_CODE
    )


def history_trimmed(exc: HistoryTrimmedError) -> RunErrorEvent:
    return RunErrorEvent(message=str(exc), code=HISTORY_TRIMMED_CODE)


# -- HTTP rejections about runs and stores --------------------------------------------------------


def run_not_found() -> RequestRejectedError:
    """The one answer for unknown, expired and someone else's runs (no hint which)."""
    return RequestRejectedError(
        404,
        "run_not_found",
        "no such run: unknown, expired, or not accessible with these credentials",
    )


def store_unavailable() -> RequestRejectedError:
    return RequestRejectedError(
        503,
        "store_unavailable",
        "the run store is unreachable; retry later",
        headers={"retry-after": "1"},
    )


def thread_store_unavailable() -> RequestRejectedError:
    """The thread store did not answer when a run or a thread request needed it."""
    return RequestRejectedError(
        503,
        "thread_store_unavailable",
        "the thread store is unreachable; retry later",
        headers={"retry-after": "1"},
    )


def thread_not_found() -> RequestRejectedError:
    """The one answer for unknown, deleted and someone else's threads (no hint which)."""
    return RequestRejectedError(
        404,
        "thread_not_found",
        "no such thread: unknown, deleted, or not accessible with these credentials",
    )


def store_full() -> RequestRejectedError:
    return RequestRejectedError(
        503,
        "store_full",
        "too many runs in progress; retry later",
        headers={"retry-after": "1"},
    )


def thread_history_not_public() -> RequestRejectedError:
    """``?threadId=`` from the anonymous principal while thread history is private."""
    return RequestRejectedError(
        403,
        "thread_history_not_public",
        "thread history is not served to anonymous callers: thread ids are chosen by clients, "
        "so anyone could read anyone's thread. Add an authorize hook that names the caller "
        "(each principal then reads only its own runs), or build the endpoint with "
        "public_thread_history=True to serve the anonymous runs of a thread to anyone",
    )


def runs_not_started() -> RequestRejectedError:
    """A detached run asked for while the app shuts down (its lifespan has been left)."""
    return RequestRejectedError(
        503, "runs_not_started", "this server is not ready to run agents; retry later"
    )


def lifespan_not_run() -> RequestRejectedError:
    """A detached run asked for while the endpoint's lifespan never ran: a configuration to
    fix, not a state to wait out (``app.mount`` in FastAPI/Starlette never runs a mounted
    app's lifespan)."""
    return RequestRejectedError(
        500,
        "runs_not_started",
        "the run store was not started: this endpoint's lifespan never ran (a mounted app's "
        "lifespan does not run). Pass lifespan=endpoint.lifespan to FastAPI(...) or "
        "Starlette(...), enter `async with endpoint.lifespan():` in your own lifespan, or use "
        "create_app (docs/server.md, 'Mounting it')",
    )


def invalid_thread_id(problem: str) -> RequestRejectedError:
    """A thread or run id no thread store can keep (``thread_id_problem`` says why)."""
    return RequestRejectedError(
        400, "invalid_thread_id", f"{problem}; choose another id (docs/threads.md, 'Ids')"
    )


def message_id_conflict(message_id: str, thread_id: str, what: str) -> RequestRejectedError:
    """A request message under the id of a stored message it is not (the merge rule)."""
    return RequestRejectedError(
        409,
        "message_id_conflict",
        f"message {message_id!r} has the id of {what} of thread {thread_id!r}: give each new "
        "message a new id (an edit too: send the messages before it and the edited one under a "
        "new id); nothing was run or changed",
    )
