"""Debug logging of a run: what arrived, what the pipeline made of it, and the run's lifecycle.

The Python counterpart of the TypeScript client's ``debug`` option. ``HttpAgent(debug=True)``
(or ``debug=DebugConfig(...)``, or a dict of the same fields) writes ``DEBUG`` records on two
loggers under ``ag_ui.client``: ``ag_ui.client.events`` (each event as received, expanded from a
chunk, verified, applied or dropped) and ``ag_ui.client.lifecycle`` (run started / errored /
aborted / finished, the stream format, reconnects). The agent writes nothing unless the option
is on; the logging configuration then decides what is shown:

>>> import logging
>>> logging.basicConfig()
>>> logging.getLogger("ag_ui.client").setLevel(logging.DEBUG)
>>> # agent = HttpAgent(url, debug=DebugConfig(verbose=True))

Each message starts with the pipeline stage in brackets, as in TypeScript: ``[SSE]`` /
``[PROTO]`` (received), ``[TRANSFORM]`` (made from a chunk), ``[VERIFY]``, ``[APPLY]``, ``[HTTP]``
and ``[LIFECYCLE]``. The record also carries the stage as ``record.ag_ui_stage`` and the event or
the data as ``record.ag_ui_data``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Union

from pydantic import BaseModel

from ag_ui.core._wire import event_type_name

__all__ = ["DebugConfig", "DebugLog", "DebugOption", "resolve_debug"]

EVENT_LOGGER = logging.getLogger("ag_ui.client.events")
LIFECYCLE_LOGGER = logging.getLogger("ag_ui.client.lifecycle")


@dataclass(frozen=True)
class DebugConfig:
    """What to log: ``events`` and ``lifecycle`` records; ``verbose`` puts each event's full
    wire JSON in the record instead of a short summary (its type and ids)."""

    events: bool = True
    lifecycle: bool = True
    verbose: bool = False

    @property
    def enabled(self) -> bool:
        return self.events or self.lifecycle


DebugOption = Union[bool, DebugConfig, Mapping[str, bool], None]
"""``True`` (everything, verbose), ``False``/``None`` (nothing), a ``DebugConfig``, or a dict
with some of its fields (the others keep their defaults, as TypeScript's object form does)."""

_OFF = DebugConfig(events=False, lifecycle=False, verbose=False)
_ALL = DebugConfig(events=True, lifecycle=True, verbose=True)


def resolve_debug(option: DebugOption) -> DebugConfig:
    """The ``DebugConfig`` an ``HttpAgent(debug=...)`` option stands for."""
    if isinstance(option, DebugConfig):
        return option
    if option is None or option is False:
        return _OFF
    if option is True:
        return _ALL
    if isinstance(option, Mapping):
        known = {field.name for field in fields(DebugConfig)}
        unknown = set(option) - known
        if unknown:
            raise TypeError(f"unknown debug option(s): {', '.join(sorted(unknown))}")
        return DebugConfig(**{key: bool(value) for key, value in option.items()})
    raise TypeError(f"debug must be a bool, a DebugConfig or a dict, not {option!r}")


_SUMMARY_FIELDS = ("message_id", "tool_call_id", "run_id", "thread_id")


def _wire_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


class _EventText:
    """Formats an event only if a handler actually emits the record."""

    def __init__(self, event: BaseModel, verbose: bool) -> None:
        self.event = event
        self.verbose = verbose

    def __str__(self) -> str:
        event = self.event
        if self.verbose:
            return str(event.__pydantic_serializer__.to_json(event, by_alias=True).decode())
        summary: dict[str, Any] = {"type": event_type_name(event)}
        for name in _SUMMARY_FIELDS:
            value = getattr(event, name, None)
            if value is not None:
                summary[_wire_name(name)] = value
        return json.dumps(summary)


class DebugLog:
    """The agent's debug switch, applied: call sites ask it to log and it decides."""

    def __init__(self, config: DebugConfig) -> None:
        self.config = config

    def event(self, stage: str, label: str, event: BaseModel, **details: object) -> None:
        """An event at a pipeline stage; ``details`` (e.g. why it was dropped) follow it."""
        if not self.config.events or not EVENT_LOGGER.isEnabledFor(logging.DEBUG):
            return
        text = _EventText(event, self.config.verbose)
        extra = {"ag_ui_stage": stage, "ag_ui_data": event}
        if details:
            EVENT_LOGGER.debug(
                "[%s] %s %s %s", stage, label, text, json.dumps(details, default=str), extra=extra
            )
        else:
            EVENT_LOGGER.debug("[%s] %s %s", stage, label, text, extra=extra)

    def lifecycle(self, stage: str, label: str, **data: object) -> None:
        """A lifecycle step of the run, with its data as JSON."""
        if not self.config.lifecycle or not LIFECYCLE_LOGGER.isEnabledFor(logging.DEBUG):
            return
        extra = {"ag_ui_stage": stage, "ag_ui_data": data}
        LIFECYCLE_LOGGER.debug(
            "[%s] %s %s", stage, label, json.dumps(data, default=str), extra=extra
        )
