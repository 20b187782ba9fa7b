"""Debian's Chromium for the browser tests (the inspector's and the dojo's), driven by
Playwright: one launch, with the flags of /work/.library/env/machines/python.md."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
# No sandbox (the tests run as root), no GPU, and nothing that reaches for the network on its own.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def chromium_context(
    profile: Path, *, extra_args: tuple[str, ...] = (), **options: Any
) -> Iterator[Any]:
    """A headless Chromium with its profile in ``profile`` (a 1400x860 page unless ``options``
    say otherwise), closed on exit; a missing Chromium fails the test, naming the package.
    ``extra_args``: more command-line flags (``--host-resolver-rules=MAP name 127.0.0.1``)."""
    from playwright.sync_api import sync_playwright

    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: scripts/test installs Debian's chromium package")
    options.setdefault("viewport", {"width": 1400, "height": 860})
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            args=[*CHROMIUM_FLAGS, *extra_args],
            headless=True,
            **options,
        )
        try:
            yield context
        finally:
            context.close()
