"""Every Python block of README.md and docs/*.md runs as written (tests/docs/harness.py says
how), and so does every example in examples/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.docs.harness import Block, DocBlockError, collect_blocks, doc_files, run_block

BLOCKS = collect_blocks(REPO)
EXAMPLES = sorted((REPO / "examples").glob("*.py"))


@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_doc_block_runs_as_written(
    block: Block, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    try:
        run_block(block, tmp_path, request)
    except DocBlockError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
def test_example_runs(example: Path, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    try:
        run_block(Block(example, 1, example.read_text(encoding="utf-8")), tmp_path, request)
    except DocBlockError as exc:
        pytest.fail(str(exc), pytrace=False)


def test_the_docs_point_to_every_example() -> None:
    text = "\n".join(path.read_text(encoding="utf-8") for path in doc_files(REPO))
    assert EXAMPLES
    for example in EXAMPLES:
        assert f"examples/{example.name}" in text, f"no document links examples/{example.name}"
