"""A griffe extension for the API reference: the project's docstrings are written for
people reading the source (reST roles, ``::`` literal blocks, doctests, simple tables);
mkdocstrings renders Markdown. This turns the first into the second before rendering:

* doctest blocks (``>>>`` lines and their output) and ``::`` literal blocks become fenced
  code, so ``[...]`` in an example is never read as a link;
* ``:role:`~pkg.mod.Name``` becomes ```Name``` (code, without a link: a role may name
  something outside the project, and a dead cross-reference is a build warning);
* simple tables (``====  ====`` borders) become fenced text.

Loaded by ``mkdocs.yml`` (``extensions: - docs/ext/rst_docstrings.py``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_BORDER = re.compile(r"^\s*=+(\s+=+)+\s*$")


def _role(match: re.Match[str]) -> str:
    text = match.group(1)
    short = match.group(0).startswith(":", 0) and "`~" in match.group(0)
    return f"`{text.rsplit('.', 1)[-1] if short else text}`"


def convert(text: str) -> str:
    """The docstring ``text`` as Markdown."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith(">>>"):
            block, i = _take(lines, i, lambda s: s.strip() != "")
            out += ["```pycon", *block, "```"]
            continue
        if _BORDER.match(line):
            block, i = _table(lines, i)
            out += ["```text", *block, "```"]
            continue
        if stripped.endswith("::") and not stripped.startswith(".."):
            out.append(_ROLE.sub(_role, line[: line.rstrip().rfind("::")] + ":"))
            i += 1
            while i < len(lines) and not lines[i].strip():
                i += 1
            indent = len(lines[i]) - len(lines[i].lstrip()) if i < len(lines) else 0
            base = len(line) - len(line.lstrip())
            if indent > base:
                block, i = _take(
                    lines, i, lambda s, n=indent: not s.strip() or s.startswith(" " * n)
                )
                while block and not block[-1].strip():
                    block.pop()
                out += ["", "```text", *(b[indent:] for b in block), "```", ""]
            continue
        out.append(_ROLE.sub(_role, line))
        i += 1
    return "\n".join(out)


def _take(lines: list[str], i: int, keep: Any) -> tuple[list[str], int]:
    block = []
    while i < len(lines) and keep(lines[i]):
        block.append(lines[i])
        i += 1
    return block, i


def _table(lines: list[str], i: int) -> tuple[list[str], int]:
    block, borders = [], 0
    while i < len(lines) and borders < 3:
        if _BORDER.match(lines[i]):
            borders += 1
        block.append(lines[i])
        i += 1
    return block, i


class RstDocstrings(griffe.Extension):
    """Rewrites every docstring once it is loaded (see the module doc)."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value)
