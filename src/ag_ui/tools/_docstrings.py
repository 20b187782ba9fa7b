"""What a function's docstring says: its summary and one description per parameter.

Reads the three styles in common use (Google ``Args:``, Sphinx ``:param x:``, NumPy
``Parameters`` with a dashed underline); anything else is summary text. No dependency: the
sections are simple enough that a docstring parser library would cost more than it saves.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Optional

__all__ = ["Docstring", "parse_docstring"]

_GOOGLE_HEADERS = frozenset({"args", "arguments", "parameters", "params", "keyword args"})
_OTHER_GOOGLE_SECTIONS = frozenset(
    {"returns", "return", "yields", "raises", "examples", "example", "notes", "note", "see also"}
)
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_FIELD = re.compile(r"^:\w+")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")


@dataclass
class Docstring:
    summary: str = ""
    """The text before the first section (paragraphs kept, lines joined)."""
    params: dict[str, str] = field(default_factory=dict)
    """Parameter name -> its description."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(lines: list[str]) -> str:
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines:
        if line.strip():
            current.append(line.strip())
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def _items(lines: list[str], item: re.Pattern[str]) -> dict[str, str]:
    """Parameter descriptions: an item line at the section's indentation names a parameter (its
    text, if the pattern has a second group, starts the description); deeper lines continue it."""
    params: dict[str, str] = {}
    base: Optional[int] = None
    name: Optional[str] = None
    for line in lines:
        if not line.strip():
            continue
        if base is None:
            base = _indent(line)
        match = item.match(line.strip()) if _indent(line) <= base else None
        if match:
            name = match.group(1).lstrip("*")
            params[name] = (match.group(2) or "").strip() if item.groups > 1 else ""
        elif name is not None:
            params[name] = f"{params[name]} {line.strip()}".strip()
    return params


def parse_docstring(doc: Optional[str]) -> Docstring:
    """Split ``doc`` into its summary and its parameter descriptions.

    >>> parse_docstring('''Weather for a city.
    ...
    ...     Args:
    ...         city: The city's name.
    ... ''').params
    {'city': "The city's name."}
    """
    if not doc:
        return Docstring()
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    index = 0
    in_summary = True
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        header = stripped.rstrip(":").lower()
        underline = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
        if stripped.endswith(":") and header in _GOOGLE_HEADERS and _indent(line) == 0:
            section, index = _section(lines, index + 1)
            params.update(_items(section, _GOOGLE_ITEM))
            in_summary = False
            continue
        if underline and header in _GOOGLE_HEADERS:
            section, index = _numpy_section(lines, index + 2)
            params.update(_items(section, _NUMPY_ITEM))
            in_summary = False
            continue
        sphinx = _SPHINX_PARAM.match(stripped)
        if sphinx:
            name, text = sphinx.group(1), [sphinx.group(2)]
            index += 1
            while (
                index < len(lines)
                and lines[index].strip()
                and not _SPHINX_FIELD.match(lines[index].strip())
            ):
                text.append(lines[index].strip())
                index += 1
            params[name] = " ".join(part for part in text if part)
            in_summary = False
            continue
        ends_summary = (stripped.endswith(":") and header in _OTHER_GOOGLE_SECTIONS) or (
            underline and header in _OTHER_GOOGLE_SECTIONS
        )
        if ends_summary or _SPHINX_FIELD.match(stripped):
            in_summary = False
        elif in_summary:
            summary.append(line)
        index += 1
    return Docstring(summary=_join(summary), params=params)


def _section(lines: list[str], start: int) -> tuple[list[str], int]:
    """The indented lines of a Google section starting at ``start``, and where it ends."""
    end = start
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > 0):
        end += 1
    return lines[start:end], end


def _numpy_section(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines of a NumPy section up to the next underlined header."""
    end = start
    while end < len(lines):
        if end + 1 < len(lines) and lines[end].strip() and set(lines[end + 1].strip()) == {"-"}:
            break
        end += 1
    return lines[start:end], end
