"""Opening a model's stream with retries that share one time budget: the provider's ``timeout``.

The SDKs retry by themselves (twice by default), and each try may wait the whole timeout: with
``--timeout 5``, a provider that accepted the connection and never answered ended the run after
17 s (three tries of 5 s, and the waits between them). So the providers call their SDK with its
retries off (``ModelProvider.open_stream`` is one try) and retry here, with the SDKs' policy but
one deadline:

* what is retried: a timeout, a connection that failed, HTTP 408, 409, 429 and 5xx (a
  provider's ``x-should-retry: true|false`` header decides first);
* the wait before a retry: the provider's ``retry-after-ms`` / ``retry-after`` (up to 60 s; a
  longer one is not waited for), else 0.5 s doubling per retry up to 8 s, less up to a quarter
  at random (so clients that failed together do not retry together);
* the deadline: ``timeout`` seconds after the first try began, for all of them. A try still
  waiting at the deadline is cut (``provider_timeout``); a retry whose wait would end past it
  is not made, and the last failure is the run's error (``rate_limited``, ``provider_error``...).

Once the stream is open, the SDK's own timeout bounds each silence in it (the time between two
pieces of the answer), so an answer may take longer than ``timeout`` as long as it keeps coming.
"""

from __future__ import annotations

import logging
import math
import random
from typing import Any, Optional

import anyio

from ag_ui.providers._failures import SDKErrors, described, failure, retry_after
from ag_ui.providers._provider import ModelProvider, ModelStream

__all__ = ["backoff", "open_within_budget", "retry_wait"]

logger = logging.getLogger("ag_ui.providers")

FIRST_WAIT = 0.5
"""Seconds before the first retry when the provider did not say (doubling per retry)."""
LONGEST_WAIT = 8.0
LONGEST_RETRY_AFTER = 60.0
"""A provider asking for a longer wait is not retried: the run ends with its error at once."""
_RETRIED_STATUSES = frozenset({408, 409, 429})


def backoff(retry: int) -> float:
    """Seconds before retry number ``retry + 1`` when the provider did not say."""
    return min(FIRST_WAIT * 2.0**retry, LONGEST_WAIT) * (1 - 0.25 * random.random())


def retry_wait(exc: BaseException, sdk: SDKErrors, retry: int) -> Optional[float]:
    """Seconds to wait before trying again after ``exc``, or ``None`` if it is not retried."""
    if isinstance(exc, (sdk.timeout_error, sdk.connection_error)):
        return backoff(retry)
    if not isinstance(exc, sdk.status_error):
        return None
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    told = headers.get("x-should-retry") if headers is not None else None
    status = getattr(exc, "status_code", None)
    if told == "false":
        return None
    if told != "true" and not (
        status in _RETRIED_STATUSES or (isinstance(status, int) and status >= 500)
    ):
        return None
    asked = retry_after(exc)
    if asked is None or math.isnan(asked) or asked <= 0:
        return backoff(retry)
    return asked if asked <= LONGEST_RETRY_AFTER else None  # "inf" is not waited for either


async def open_within_budget(
    provider: ModelProvider, request: dict[str, Any], *, debug: bool = False
) -> ModelStream:
    """``provider.open_stream(request)``, retried up to ``provider.max_retries`` times within
    ``provider.timeout`` seconds in all (see the module docstring)."""
    sdk = provider.sdk_errors()
    budget = provider.timeout
    deadline = math.inf if budget is None else anyio.current_time() + budget
    retry = 0
    while True:
        wait: Optional[float] = None
        with anyio.CancelScope(deadline=deadline) as scope:
            try:
                return await provider.open_stream(request)
            except Exception as exc:
                if retry < provider.max_retries:
                    wait = retry_wait(exc, sdk, retry)
                if wait is None or anyio.current_time() + wait >= deadline:
                    raise
                logger.info(
                    "model provider %s failed: %s; retry %d of %d in %.1f s",
                    provider.where,
                    described(exc),
                    retry + 1,
                    provider.max_retries,
                    wait,
                )
        if scope.cancelled_caught:
            raise failure(
                "provider_timeout",
                provider.provider,
                debug=debug,
                detail=f"no answer within the {budget:g} s timeout "
                f"({retry + 1} {'try' if retry == 0 else 'tries'})",
            )
        assert wait is not None
        await anyio.sleep(wait)
        retry += 1
