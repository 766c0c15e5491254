"""The documentation builds, and documents everything public (issue 18).

The site (``mkdocs.yml``: the guides, the cookbook and the API reference from the
docstrings) is built with ``--strict``, so any warning fails CI. Every module of
``protocol``, ``sdk`` and ``bots``, every public class and function, and every public
method or property of a public class must have a docstring (an inherited one counts).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "sdk", "bots")


def test_the_site_builds_without_warnings(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    for page in ("api/protocol", "api/sdk", "api/bots", "cookbook/claims"):
        assert (tmp_path / page / "index.html").is_file()
    assert "sdk.bot.Bot" in (tmp_path / "api/sdk/index.html").read_text()


def _modules() -> Iterator[ModuleType]:
    for name in PACKAGES:
        package = importlib.import_module(name)
        yield package
        for info in pkgutil.walk_packages(package.__path__, f"{name}."):
            if not info.name.endswith("__main__"):
                yield importlib.import_module(info.name)


def _public(module: ModuleType) -> Iterator[tuple[str, object]]:
    names = getattr(module, "__all__", None)
    for name in names if names is not None else vars(module):
        obj = getattr(module, name, None)
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) == module.__name__:
            yield name, obj


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
