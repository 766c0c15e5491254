"""The documentation builds, renders every docstring, and documents everything public.

The site (``docs/conf.py``: Sphinx, with the guides and the cookbook in Markdown and the
API reference from the docstrings, one page per module) is built with ``-W``, so any
warning fails CI: a link to a page or file that does not exist, a heading anchor that does
not exist, a docstring that is not valid reStructuredText. The built pages are then read
for markup that slipped through unrendered (a role such as ``:func:`x```, a pair of double
backquotes, a simple table's ``====`` rule). Every module of ``protocol``, ``sdk`` and
``bots``, every public class and function, and every public method or property of a
public class must have a docstring (an inherited one counts).
"""

from __future__ import annotations

import doctest
import html
import importlib.util
import inspect
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("reference", ROOT / "docs/api/reference.py")
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def sphinx_build(source: Path, out: Path, conf: Path) -> subprocess.CompletedProcess[str]:
    """Build the site of ``source`` with the configuration in folder ``conf``, warnings as
    errors (all of them reported, not only the first)."""
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-j", "auto"]
    return subprocess.run(
        [*command, "-b", "html", "-c", str(conf), str(source), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = sphinx_build(ROOT, out, ROOT / "docs")
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def test_the_site_builds_without_warnings(site: Path) -> None:
    for page in ("index", "docs/index", "docs/api/index", "docs/cookbook/claims", "README"):
        assert (site / f"{page}.html").is_file(), page
    bot = (site / "docs/api/generated/sdk.bot.html").read_text(encoding="utf-8")
    assert 'id="sdk.bot.Bot"' in bot and "Contents" in bot
    # :class:`GameView` in sdk.bot names an import: it links to where GameView is documented
    assert re.search(r"gets the seat\W+s <a [^>]*href=\"sdk\.view\.html#sdk\.view\.GameView\"", bot)


def test_every_module_has_its_own_page(site: Path) -> None:
    pages = site / "docs/api/generated"
    missing = [n for n in reference.module_names() if not (pages / f"{n}.html").is_file()]
    assert not missing


def test_the_site_works_offline(site: Path) -> None:
    loads = re.compile(r"<(?:script|link|img)\b[^>]*(?:src|href)=\"(?:https?:)?//", re.I)
    remote = [str(p.relative_to(site)) for p in site.rglob("*.html") if loads.search(p.read_text())]
    assert not remote, f"pages that load from the network: {remote[:5]}"
    # opened from files, the search cannot fetch pages for summaries (a console error)
    options = (site / "_static/documentation_options.js").read_text(encoding="utf-8")
    assert "SHOW_SEARCH_SUMMARY: false" in options


_PRE = re.compile(r"<pre\b.*?</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")
LEFTOVERS = {
    "a reST role": re.compile(r":[a-z]+(?::[a-z]+)?:`"),
    "double backquotes": re.compile(r"``\S"),
    "a table rule": re.compile(r"^\s*={3,}(?: +={3,})+\s*$", re.M),
    "a Markdown table row": re.compile(r"^\s*\|.*\|\s*$", re.M),
}
"""Markup that shows when a docstring is not rendered as written."""


def unrendered(page: str) -> list[str]:
    """The kinds of raw markup in the text of an HTML ``page`` (code blocks aside).

    >>> unrendered("<p>Use <code>x</code>.</p><pre>:func:`kept` in code</pre>")
    []
    >>> unrendered("<p>See :func:`shanten` and ``waits``.</p>")
    ['a reST role', 'double backquotes']
    """
    text = html.unescape(_TAG.sub("", _PRE.sub("", page)))
    return [kind for kind, pattern in LEFTOVERS.items() if pattern.search(text)]


def test_no_page_shows_raw_markup(site: Path) -> None:
    """No docstring of the API reference, and no guide, shows markup unrendered."""
    pages = sorted(site.rglob("*.html"))
    assert len([p for p in pages if "generated" in p.parts]) > 100
    raw = {
        str(p.relative_to(site)): found
        for p in pages
        if (found := unrendered(p.read_text(encoding="utf-8")))
    }
    assert not raw, f"pages with unrendered markup: {raw}"


def test_the_check_finds_raw_markup() -> None:
    assert unrendered("<p>a</p>\n<p>====  ====</p>") == ["a table rule"]
    assert unrendered("<p>| GET /v1 | Health |</p>") == ["a Markdown table row"]
    assert unrendered("<pre>====  ====\n| a | b |</pre><p><code>x</code></p>") == []


BROKEN = {
    "fake_broken.py": '''"""A module.

=====  =====
``wider`` than its column
=====  =====
"""
''',
    "index.md": "# Index\n\nSee [the guide](GUIDE.md) and [its part](page.md#no-such-part).\n"
    "\n```{toctree}\npage\n```\n\n```{eval-rst}\n.. automodule:: fake_broken\n```\n",
    "page.md": "# Page\n\n## A part\n",
}


def test_the_build_fails_on_a_broken_link_and_a_docstring_that_does_not_render(
    tmp_path: Path,
) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name, text in BROKEN.items():
        (source / name).write_text(text, encoding="utf-8")
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "conf.py").write_text(
        f"import runpy, sys\nsys.path.insert(0, {str(source)!r})\n"
        f"ours = runpy.run_path({str(ROOT / 'docs/conf.py')!r})\n"
        "globals().update({k: v for k, v in ours.items() if not k.startswith('__')})\n"
        "root_doc = 'index'\ninclude_patterns = ['**']\nhtml_extra_path = []\n"
        "def setup(app):\n    pass\n",
        encoding="utf-8",
    )
    done = sphinx_build(source, tmp_path / "out", conf)
    assert done.returncode != 0
    assert "GUIDE.md" in done.stderr, done.stderr
    assert "no-such-part" in done.stderr, done.stderr
    assert "fake_broken" in done.stderr and "table" in done.stderr.lower(), done.stderr


def test_the_page_writer_examples_hold() -> None:
    """``docs/api/reference.py`` is outside the packages pytest reads for doctests."""
    result = doctest.testmod(reference)
    assert result.attempted > 5 and result.failed == 0


def _modules() -> Iterator[ModuleType]:
    return (importlib.import_module(name) for name in reference.module_names())


def _public(module: ModuleType) -> Iterator[tuple[str, object]]:
    for name in reference.public_names(module):
        yield name, getattr(module, name)


def _undocumented_members(cls: type) -> Iterator[str]:
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if inspect.isfunction(func) and not (inspect.getdoc(getattr(cls, name)) or "").strip():
            yield name


def _own_doc(obj: object) -> str:
    doc = obj.__doc__ or ""
    if inspect.isclass(obj) and doc.startswith(f"{obj.__name__}("):
        return ""  # the signature a dataclass makes up is not documentation
    return doc.strip()


def undocumented() -> list[str]:
    """Every public name of the three packages that has no docstring."""
    missing = []
    for module in _modules():
        if not (module.__doc__ or "").strip():
            missing.append(module.__name__)
        for name, obj in _public(module):
            if not _own_doc(obj):
                missing.append(f"{module.__name__}.{name}")
            if inspect.isclass(obj):
                missing += [f"{module.__name__}.{name}.{m}" for m in _undocumented_members(obj)]
    return missing


def test_every_public_name_has_a_docstring() -> None:
    missing = undocumented()
    assert not missing, f"{len(missing)} public names without a docstring: {missing}"


def test_the_check_finds_a_missing_docstring() -> None:
    module = ModuleType("fake", "A module.")

    class Documented:
        """Here."""

        def method(self) -> None:
            pass

    Documented.__module__ = "fake"
    module.Documented = Documented  # type: ignore[attr-defined]
    assert [n for n, _ in _public(module)] == ["Documented"]
    assert list(_undocumented_members(Documented)) == ["method"]
