"""Sphinx configuration of the documentation site.

Build it from the repository's root with
``python -m sphinx -W --keep-going -b html -c docs . site`` (the site is written to
``site/``, open ``site/index.html``; ``tests/test_docs_build.py`` builds it the same way, so
any warning fails CI: a broken link, a docstring that is not valid reStructuredText).

The sources are the repository's root, so that the Markdown documents link to each other
as they do on GitHub (``docs/``, ``README.md``, ``bots/README.md``,
``protocol/PROTOCOL.md``), and a link to a file of the code (a JSON Schema) is copied into
the site as a download. The guides and the cookbook are Markdown (read by MyST); the API
reference is built from
the docstrings, which are reStructuredText, so Sphinx renders them as written (roles such
as ``:func:``, ``::`` blocks, simple tables, doctests). Every module of ``protocol``,
``sdk`` and ``bots`` gets its own page (``docs/api/reference.py`` writes them into
``docs/api/generated/`` at each build). The theme (Furo) ships its own scripts and fonts:
the site loads nothing from the network.
"""

from __future__ import annotations

import sys
from pathlib import Path

from sphinx.application import Sphinx

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path[:0] = [str(ROOT), str(DOCS / "api")]

import reference  # noqa: E402  (docs/api/reference.py, found through the path above)

project = "taimahjong"
author = "the taimahjong authors"
html_title = "taimahjong"
language = "en"

root_doc = "docs/index"
include_patterns = ["docs/**", "README.md", "bots/README.md", "protocol/PROTOCOL.md"]
exclude_patterns = ["docs/_extra/**"]
html_extra_path = ["_extra"]  # index.html at the site's root: it leads to docs/index.html

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
templates_path: list[str] = []

# MyST: heading anchors so that [x](SERVER.md#capacity) resolves, and a link to a local
# file that is not a page (a JSON Schema) is copied into the site as a download.
myst_heading_anchors = 4
myst_enable_extensions = ["deflist"]

# Docstrings: `single backticks` read as code, as in Markdown; a cross-reference whose
# target is not in this project (:func:`time.monotonic`) is shown as code without a link.
default_role = "literal"
autodoc_default_options = {"show-inheritance": True, "member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autosummary_generate = False
add_module_names = False
toc_object_entries_show_parents = "hide"
# A type named in a signature under two modules (``Decision``) links to the first; the
# JSON examples of RECORDS.md elide with "..." and are highlighted leniently.
suppress_warnings = ["ref.python", "misc.highlighting_failure"]

html_theme = "furo"
html_static_path: list[str] = []
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}
# Search results without a summary: fetching each page for one fails when the site is
# opened from files (file://), and the console then shows the error.
html_show_search_summary = False


def setup(app: Sphinx) -> None:
    """Write the per-module API pages before Sphinx reads the sources; leave out the
    docstrings a method inherits from another project (gymnasium's ``Env.step``); link a
    reference to a re-exported or imported name where the object is documented."""
    app.connect("builder-inited", lambda app: reference.write_pages(DOCS / "api" / "generated"))
    app.connect("autodoc-process-docstring", reference.drop_foreign_docstring)
    app.connect("missing-reference", reference.resolve_by_import)
