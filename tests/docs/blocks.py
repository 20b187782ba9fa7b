"""The Python blocks of the documentation: found in README.md and docs/*.md, with the
``<!-- docs-test: ... -->`` directive before each (conventions: ``tests/docs/harness.py``)."""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Optional

__all__ = [
    "CLIENT_ADDRESSES",
    "Block",
    "DocBlockError",
    "Directives",
    "collect_blocks",
    "doc_files",
    "extract_blocks",
]

CLIENT_ADDRESSES = ("127.0.0.1:8000", "localhost:8000")
"""The agent's address in the documentation (``agui demo``'s default), rewritten when run."""
REPO = Path(__file__).resolve().parents[2]
_PYTHON_INFOS = frozenset({"python", "py", "python3", "pycon"})
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)")
_DIRECTIVE = re.compile(r"^\s*<!--\s*docs-test:(?P<body>.*?)-->\s*$")
_DIRECTIVE_START = re.compile(r"^\s*<!--\s*docs-test")

Kind = Literal["program", "server", "app", "doctest"]


class DocBlockError(AssertionError):
    """A documentation block that does not run as written (or a malformed directive)."""


@dataclass(frozen=True)
class Directives:
    """What a block declared it needs (the ``<!-- docs-test: ... -->`` comment before it)."""

    uses: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    path: str = "/agent"

    @classmethod
    def parse(cls, body: str, where: str) -> Directives:
        uses: list[str] = []
        env: list[tuple[str, str]] = []
        path = "/agent"
        for token in shlex.split(body):
            key, equals, value = token.partition("=")
            if not equals or not value:
                raise DocBlockError(f"{where}: docs-test directive {token!r} is not key=value")
            if key == "uses":
                uses.extend(name for name in value.split(",") if name)
            elif key == "env":
                name, equals, content = value.partition("=")
                if not equals or not name:
                    raise DocBlockError(f"{where}: env= takes NAME=VALUE, got {value!r}")
                env.append((name, content))
            elif key == "path":
                if not value.startswith("/"):
                    raise DocBlockError(f"{where}: path= must start with '/', got {value!r}")
                path = value
            else:
                raise DocBlockError(
                    f"{where}: unknown docs-test key {key!r} (known: uses, env, path)"
                )
        return cls(uses=tuple(uses), env=tuple(env), path=path)


@dataclass(frozen=True)
class Block:
    """One Python code block of a document (or one example file)."""

    path: Path
    line: int
    """The line of the block's first line of code (1-based)."""
    source: str
    directives: Directives = field(default_factory=Directives)

    @property
    def id(self) -> str:
        return f"{_relative(self.path)}:{self.line}"

    @property
    def kind(self) -> Kind:
        if self.source.lstrip().startswith(">>>"):
            return "doctest"
        try:
            tree = ast.parse(self.source)
        except SyntaxError:
            return "program"  # running it reports the syntax error with its line
        if _calls_uvicorn_run(tree):
            return "server"
        if _assigns_app(tree):
            return "app"
        return "program"

    @property
    def is_client(self) -> bool:
        return self.kind == "program" and any(
            address in self.source for address in CLIENT_ADDRESSES
        )


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _calls_uvicorn_run(tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "run"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "uvicorn"
        for node in ast.walk(tree)
    )


def _assigns_app(tree: ast.Module) -> bool:
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(target, ast.Name) and target.id == "app" for target in targets):
            return True
    return False


def doc_files(repo: Path) -> list[Path]:
    """README.md and every docs/*.md, in a stable order."""
    return [repo / "README.md", *sorted((repo / "docs").glob("*.md"))]


def extract_blocks(path: Path, text: Optional[str] = None) -> list[Block]:
    """The Python blocks of one Markdown document, with their directives."""
    lines = (path.read_text(encoding="utf-8") if text is None else text).split("\n")
    blocks: list[Block] = []
    pending: Optional[tuple[int, Directives]] = None
    number = 0
    while number < len(lines):
        line = lines[number]
        where = f"{_relative(path)}:{number + 1}"
        directive = _DIRECTIVE.match(line)
        if directive:
            if pending is not None:
                raise DocBlockError(f"{where}: two docs-test directives for one block")
            pending = (number, Directives.parse(directive.group("body"), where))
            number += 1
            continue
        if _DIRECTIVE_START.search(line):
            raise DocBlockError(f"{where}: a docs-test directive must be one whole line")
        fence = _FENCE.match(line)
        if fence is None:
            if pending is not None and line.strip():
                raise DocBlockError(
                    f"{_relative(path)}:{pending[0] + 1}: a docs-test directive must be the line "
                    "right before a ```python block"
                )
            number += 1
            continue
        indent, marker = fence.group("indent"), fence.group("fence")
        info = fence.group("info").lower()
        end = number + 1
        while end < len(lines) and not lines[end].strip().startswith(marker):
            end += 1
        body = [
            code[len(indent) :] if code.startswith(indent) else code
            for code in lines[number + 1 : end]
        ]
        if info in _PYTHON_INFOS:
            directives = pending[1] if pending is not None else Directives()
            blocks.append(Block(path, number + 2, "\n".join(body) + "\n", directives))
        elif pending is not None:
            raise DocBlockError(
                f"{_relative(path)}:{pending[0] + 1}: a docs-test directive before a "
                f"{info or 'plain'} block; only Python blocks run"
            )
        pending = None
        number = end + 1
    if pending is not None:
        raise DocBlockError(f"{_relative(path)}:{pending[0] + 1}: a docs-test directive at the end")
    return blocks


def collect_blocks(repo: Path) -> list[Block]:
    """Every Python block of the documentation."""
    return [block for path in doc_files(repo) for block in extract_blocks(path)]
