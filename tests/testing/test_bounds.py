"""``BodyReader``'s UTF-8 check across chunk boundaries (the hostile servers of
tests/cli/test_validate_bounds.py cover the time and size bounds end to end)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from ag_ui.testing._bounds import BodyReader, ReadBounds

pytestmark = pytest.mark.anyio


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def _read(*parts: bytes) -> BodyReader:
    reader = BodyReader(ReadBounds(idle=5), anyio.current_time(), utf8=True)
    chunks = _chunks(*parts).__aiter__()
    while await reader.next_chunk(chunks) is not None:
        pass
    return reader


async def test_a_character_split_across_chunks_is_utf8() -> None:
    encoded = "data: café\n\n".encode()
    assert (await _read(encoded[:9], encoded[9:])).broken is None


async def test_a_byte_that_is_not_utf8_names_its_offset() -> None:
    broken = (await _read(b"data: ok\n\n", b"data: caf\xe9!\n\n")).broken
    assert broken is not None
    assert broken.rule == "wire.utf8"
    assert "at byte 19" in broken.message


async def test_a_sequence_cut_by_the_end_of_the_stream() -> None:
    broken = (await _read(b"data: caf\xc3")).broken
    assert broken is not None
    assert "at its end (byte 9)" in broken.message
