"""Parsing a large request body in slices, so the worker's other streams keep running meanwhile.

pydantic-core validates a body in one call that holds the GIL: 150,000 small messages (6.3 MiB)
kept the event loop, and so every other stream of the worker, still for 1-3 s. A worker thread
does not help: the call never releases the GIL, and the loop stood still just as long (measured;
``benchmarks/bench_big_body.py``). So a body over ``SLICED_ABOVE`` bytes is decoded and
validated in pieces, the loop getting control back after every ``SLICE`` seconds of work:

1. decoding, by json's C scanner: the top-level object member by member, and the items of the
   arrays and objects in it one by one (one message, one key of ``state``);
2. validation, as the items arrive: ``messages``, ``tools`` and ``context`` in batches sized to
   take about half a slice (each batch's raw items are dropped once validated, so the decoded
   body and the models are not both held in full); then the rest of ``RunAgentInput`` with those
   lists left empty, and the validated lists put in.

What is refused, and how, is what the one-call path (``parse_run_agent_input``) refuses: 400 for
text that is not JSON (``NaN`` and ``Infinity`` included), 422 naming each problem's wire path;
``max_messages`` is checked as the messages arrive, before the rest is read. A single item at
the second level (one message) is still handled in one go.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator, Sequence
from typing import Any, Optional, Union, overload

import anyio
from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from ag_ui.core._gc_tracking import untrack_plain
from ag_ui.core._readable import describe_errors
from ag_ui.core._surrogates import refuse_constant
from ag_ui.core.decoding import parse_run_agent_input
from ag_ui.core.errors import AGUIValidationError, MalformedJSONError
from ag_ui.core.types import Context, Message, RunAgentInput, Tool
from ag_ui.server._request import check_depth, too_many_messages

__all__ = ["SLICE", "SLICED_ABOVE", "parse_run_input"]

SLICED_ABOVE = 64 * 1024
"""Bodies up to this size are parsed in one call: at worst (tiny messages, ~7 µs each) that is
about 10 ms, and it is the fastest way for the bodies most requests have."""

SLICE = 0.005
"""Seconds of parsing between two returns to the event loop."""

_WHAT = "RunAgentInput"
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_WHITESPACE_BYTES = re.compile(rb"[ \t\n\r]*")
_LIST_ADAPTERS: dict[str, TypeAdapter[Any]] = {
    "messages": TypeAdapter(list[Message]),
    "tools": TypeAdapter(list[Tool]),
    "context": TypeAdapter(list[Context]),
}
"""The list fields of ``RunAgentInput`` validated batch by batch (the bulk of a large body)."""


async def parse_run_input(body: bytes, *, max_messages: Optional[int] = None) -> RunAgentInput:
    """``parse_run_agent_input(body)``, in slices when the body is large; raises the same
    ``MalformedJSONError``/``AGUIValidationError``, the 413 for more than ``max_messages``, or
    the 400 for free-form JSON nested too deeply (``check_depth``).

    Plain messages are left out of the cyclic GC's scans (``core/_gc_tracking.py``)."""
    start = _WHITESPACE_BYTES.match(body)
    opening = body[start.end() : start.end() + 1] if start else b""
    if len(body) <= SLICED_ABOVE or opening != b"{":
        run_input = parse_run_agent_input(body)
        if max_messages is not None and len(run_input.messages) > max_messages:
            raise too_many_messages(max_messages)
        untrack_plain(run_input.messages)
        check_depth(run_input)
        return run_input
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedJSONError(_WHAT, str(exc)) from None
    run_input = await _SlicedParse(text, max_messages).run()
    check_depth(run_input)
    return run_input


class _Window(Sequence[Any]):
    """One batch seen at its place in the whole list, for the error messages' indices."""

    def __init__(self, offset: int, items: list[Any]) -> None:
        self._offset = offset
        self._items = items

    def __len__(self) -> int:
        return self._offset + len(self._items)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...
    def __getitem__(self, index: Union[int, slice]) -> Any:
        if isinstance(index, slice):
            raise TypeError("a window into a list is read one item at a time")
        position = index - self._offset
        return self._items[position] if 0 <= position < len(self._items) else None

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)


class _ListValidation:
    """Validates one list field of the body as its items are decoded, batch by batch."""

    def __init__(self, key: str, parse: _SlicedParse) -> None:
        self.key = key
        self._adapter = _LIST_ADAPTERS[key]
        self._parse = parse
        self._pending: list[Any] = []
        self._offset = 0
        self._batch = 64
        self.items: list[Any] = []

    async def add(self, item: Any) -> None:
        self._pending.append(item)
        if len(self._pending) >= self._batch:
            await self.flush()

    async def flush(self) -> None:
        if not self._pending:
            return
        batch, self._pending = self._pending, []
        started = time.perf_counter()
        try:
            validated = self._adapter.validate_python(batch)
            untrack_plain(validated)
            self.items.extend(validated)
        except ValidationError as exc:
            shifted: list[ErrorDetails] = []
            for error in exc.errors(include_url=False):
                loc = error["loc"]
                first = loc[0] if loc else 0
                index = self._offset + first if isinstance(first, int) else first
                shifted.append({**error, "loc": (self.key, index, *loc[1:])})
            window = _Window(self._offset, batch)
            self._parse.problems += describe_errors(shifted, {self.key: window})
        self._offset += len(batch)
        # Size the next batch to take about half a slice to validate, from what this one took
        # (growing at most twofold: one fast batch says little about the next items).
        spent = max(time.perf_counter() - started, 1e-6)
        wanted = int(self._batch * (SLICE / 2) / spent)
        self._batch = max(8, min(wanted, 2 * self._batch, 1024))


class _SlicedParse:
    def __init__(self, text: str, max_messages: Optional[int]) -> None:
        self._text = text
        self._decoder = json.JSONDecoder(parse_constant=refuse_constant)
        self._max_messages = max_messages
        self._since = time.perf_counter()
        self.problems: list[str] = []

    async def tick(self) -> None:
        """Give the event loop a turn once this parse has worked for a slice."""
        if time.perf_counter() - self._since >= SLICE:
            await anyio.sleep(0)
            self._since = time.perf_counter()

    async def run(self) -> RunAgentInput:
        try:
            rest, lists = await self._top_level()
        except ValueError as exc:  # json.JSONDecodeError and the refused constants
            raise MalformedJSONError(_WHAT, str(exc)) from None
        except RecursionError:
            raise MalformedJSONError(_WHAT, "nested too deeply: recursion limit exceeded") from None
        try:
            run_input = parse_run_agent_input(rest)
        except AGUIValidationError as exc:
            raise AGUIValidationError(_WHAT, [*exc.problems, *self.problems]) from None
        if self.problems:
            raise AGUIValidationError(_WHAT, self.problems)
        return run_input.model_copy(update={key: done.items for key, done in lists.items()})

    # -- decoding --------------------------------------------------------------------------------

    def _skip(self, index: int) -> int:
        match = _WHITESPACE.match(self._text, index)
        return match.end() if match else index

    def _expect(self, index: int, char: str, what: str) -> int:
        if self._text[index : index + 1] != char:
            raise json.JSONDecodeError(f"Expecting {what}", self._text, index)
        return self._skip(index + 1)

    def _key(self, index: int) -> tuple[str, int]:
        if self._text[index : index + 1] != '"':
            what = "property name enclosed in double quotes"
            raise json.JSONDecodeError(f"Expecting {what}", self._text, index)
        key, index = self._decoder.raw_decode(self._text, index)
        return key, self._expect(self._skip(index), ":", "':' delimiter")

    def _value(self, index: int) -> tuple[Any, int]:
        value, end = self._decoder.raw_decode(self._text, index)
        return value, self._skip(end)

    async def _top_level(self) -> tuple[dict[str, Any], dict[str, _ListValidation]]:
        """The body's members, the validated lists apart (left empty in the first dict)."""
        rest: dict[str, Any] = {}
        lists: dict[str, _ListValidation] = {}
        index = self._expect(self._skip(0), "{", "'{'")
        if self._text[index : index + 1] == "}":
            index += 1
        else:
            while True:
                key, index = self._key(index)
                opening = self._text[index : index + 1]
                if key in _LIST_ADAPTERS and opening == "[":
                    validation = _ListValidation(key, self)
                    index = await self._array(index, validation)
                    lists[key] = validation
                    rest[key] = []
                else:
                    lists.pop(key, None)  # a repeated key: the last one counts, as in json
                    if opening == "[":
                        items: list[Any] = []
                        index = await self._array(index, items)
                        rest[key] = items
                    elif opening == "{":
                        rest[key], index = await self._object(index)
                    else:
                        rest[key], index = self._value(index)
                if self._text[index : index + 1] == ",":
                    index = self._skip(index + 1)
                    continue
                if self._text[index : index + 1] != "}":
                    raise json.JSONDecodeError("Expecting ',' delimiter", self._text, index)
                index += 1
                break
        end = self._skip(index)
        if end != len(self._text):
            raise json.JSONDecodeError("Extra data", self._text, end)
        return rest, lists

    async def _array(self, index: int, into: Union[list[Any], _ListValidation]) -> int:
        index = self._skip(index + 1)
        if self._text[index : index + 1] == "]":
            return self._skip(index + 1)
        count = 0
        while True:
            item, index = self._value(index)
            count += 1
            if isinstance(into, list):
                into.append(item)
            else:
                limit = self._max_messages
                if into.key == "messages" and limit is not None and count > limit:
                    raise too_many_messages(limit)
                await into.add(item)
            await self.tick()
            if self._text[index : index + 1] == ",":
                index = self._skip(index + 1)
                continue
            index = self._expect(index, "]", "',' delimiter")
            if not isinstance(into, list):
                await into.flush()
            return index

    async def _object(self, index: int) -> tuple[dict[str, Any], int]:
        members: dict[str, Any] = {}
        index = self._skip(index + 1)
        if self._text[index : index + 1] == "}":
            return members, self._skip(index + 1)
        while True:
            key, index = self._key(index)
            members[key], index = self._value(index)
            await self.tick()
            if self._text[index : index + 1] == ",":
                index = self._skip(index + 1)
                continue
            return members, self._expect(index, "}", "',' delimiter")
