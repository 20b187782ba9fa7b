"""docs/testing.md and docs/validate.md: every Python block runs as written (scripts with
python, test modules with pytest), and the rule catalogue in the docs is the code's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ag_ui.testing import RULES
from ag_ui.testing.validation import SCENARIOS
from tests.conftest import REPO

DOCS = [REPO / "docs" / "testing.md", REPO / "docs" / "validate.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        for number, match in enumerate(BLOCK.finditer(doc.read_text()), start=1):
            found.append((f"{doc.name}-{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("name", "code"), blocks(), ids=[name for name, _ in blocks()])
def test_each_python_block_runs(name: str, code: str, tmp_path: Path) -> None:
    if re.search(r"^(async )?def test_", code, re.M):
        path = tmp_path / f"test_{name.replace('.', '_').replace('-', '_')}.py"
        path.write_text(code)
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)]
    else:
        path = tmp_path / "block.py"
        path.write_text(code)
        command = [sys.executable, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_catalogue_in_the_docs_is_the_codes() -> None:
    text = (REPO / "docs" / "validate.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([^`]+)` \| .*\|$", text, re.M)}
    scenarios = set(SCENARIOS)  # the scenario table uses the same row shape
    options = {rule_id for rule_id in rows if rule_id.startswith("-")}  # the options table
    assert set(rows) - scenarios - options == set(RULES)
    assert scenarios <= set(rows)
    for rule in RULES.values():
        row = rows[rule.id]
        assert rule.title in row
        assert all(agui in row for agui in rule.agui)
