"""The API reference's pages: one reStructuredText page per module, written at each build.

Every module and package of ``protocol``, ``sdk`` and ``bots`` (``__main__`` modules
aside) gets a page named for it, such as ``generated/sdk.bot.rst``: its docstring, a
contents table of its public classes and functions (one line each, linked), then each of
them in full. A package's page lists its modules. ``docs/conf.py`` calls
:func:`write_pages` when the build starts; the folder is not kept in git.

>>> page = module_page("sdk.bot")
>>> page.splitlines()[:2]
['sdk.bot', '=======']
>>> "   .. autosummary::" in page and "      Bot" in page
True
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

PACKAGES = ("protocol", "sdk", "bots")


def module_names() -> Iterator[str]:
    """Every documented module, each package before its modules, in name order."""
    for root in PACKAGES:
        package = importlib.import_module(root)
        yield root
        infos = pkgutil.walk_packages(package.__path__, f"{root}.")
        yield from sorted(i.name for i in infos if not i.name.endswith("__main__"))


def public_names(module: ModuleType) -> list[str]:
    """The classes and functions ``module`` defines and shows: its ``__all__`` in that
    order, else every name without a leading underscore in source order."""
    names = getattr(module, "__all__", None)
    found = []
    for name in names if names is not None else list(vars(module)):
        obj = getattr(module, name, None)
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if getattr(obj, "__module__", None) == module.__name__:
            found.append(name)
    return found if names is not None else sorted(found, key=lambda n: _line(getattr(module, n)))


def reexported(module: ModuleType) -> list[str]:
    """The classes and functions of ``module``'s ``__all__`` defined in one of its own
    modules (a package's shortcuts, ``protocol.Action``), as paths relative to it.

    >>> import protocol
    >>> reexported(protocol)[:2]
    ['actions.Action', 'actions.ActionKind']
    """
    prefix = f"{module.__name__}."
    found = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        home = getattr(obj, "__module__", "") or ""
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and home.startswith(prefix):
            found.append(f"{home.removeprefix(prefix)}.{obj.__qualname__}")
    return found


def _line(obj: object) -> int:
    try:
        return inspect.getsourcelines(obj)[1]  # type: ignore[arg-type]
    except (OSError, TypeError):
        return 0


def _children(name: str, all_names: list[str]) -> list[str]:
    depth = name.count(".") + 1
    return [n for n in all_names if n.startswith(f"{name}.") and n.count(".") == depth]


def module_page(name: str, all_names: list[str] | None = None) -> str:
    """The reStructuredText page of module ``name``."""
    module = importlib.import_module(name)
    names = public_names(module)
    lines = [name, "=" * len(name), "", f".. automodule:: {name}"]
    lines += [f"   :members: {', '.join(names)}"] if names else ["   :no-members:"]
    entries = names + [f"~{path}" for path in reexported(module)]
    if entries:
        lines += ["", "   .. rubric:: Contents", "", "   .. autosummary::", ""]
        lines += [f"      {entry}" for entry in entries]
    children = _children(name, all_names or [])
    if children:
        lines += ["", ".. rubric:: Modules", "", ".. toctree::", "   :maxdepth: 1", ""]
        lines += [f"   {child}" for child in children]
    return "\n".join(lines) + "\n"


def write_pages(folder: Path) -> list[Path]:
    """Write every module's page into ``folder`` (a page that has not changed is left
    alone, so Sphinx rebuilds only what changed) and delete pages of modules now gone."""
    folder.mkdir(parents=True, exist_ok=True)
    names = list(module_names())
    written = []
    for name in names:
        path = folder / f"{name}.rst"
        text = module_page(name, names)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    for stale in set(folder.glob("*.rst")) - set(written):
        stale.unlink()
    return written


def _own_doc(value: object) -> str | None:
    func = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
    return getattr(func, "__doc__", None)


def _class_named(path: str) -> type | None:
    """The class at dotted ``path`` (a module path, then attributes), if there is one."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part, None)
        return obj if inspect.isclass(obj) else None
    return None


def inherits_foreign_doc(cls: type, attr: str) -> bool:
    """Whether ``cls.attr`` has no docstring of its own in this project and would show
    one inherited from a class of another project.

    >>> import concurrent.futures
    >>> class Pool(concurrent.futures.ThreadPoolExecutor):
    ...     def submit(self, fn, /, *args, **kwargs):
    ...         return super().submit(fn, *args, **kwargs)
    >>> Pool.__module__ = "sdk.example"
    >>> inherits_foreign_doc(Pool, "submit"), inherits_foreign_doc(Pool, "shutdown")
    (True, True)
    """
    for klass in cls.__mro__:
        value = vars(klass).get(attr)
        if value is not None and _own_doc(value):
            return klass.__module__.split(".")[0] not in PACKAGES
    return False


def drop_foreign_docstring(app, what, name, obj, options, lines: list[str]) -> None:  # type: ignore[no-untyped-def]
    """An ``autodoc-process-docstring`` handler: empty ``lines`` when the method ``name``
    inherits its docstring from another project (written for another site, in another
    markup, such as gymnasium's ``Env.step``)."""
    if what not in ("method", "property", "attribute") or "." not in name:
        return
    path, attr = name.rsplit(".", 1)
    cls = _class_named(path)
    if cls is not None and inherits_foreign_doc(cls, attr):
        lines.clear()


def find_object(target: str, module: str | None = None, cls: str | None = None) -> object:
    """The object a cross-reference's ``target`` names, read as Python would from inside
    ``module`` (and class ``cls``): a full dotted path, or a name of that module's
    namespace (imported or defined). ``None`` when nothing answers to it.

    >>> find_object("sdk.records.Record").__module__
    'sdk.records.model'
    >>> find_object("GameView", module="sdk.bot").__module__
    'sdk.view'
    >>> find_object("no_such_name", module="sdk.bot") is None
    True
    """
    scopes = [f"{module}.{cls}" if module and cls else "", module or "", ""]
    for scope in dict.fromkeys(scopes):
        found = _dotted(f"{scope}.{target}" if scope else target)
        if found is not None:
            return found
    return None


def _dotted(path: str) -> object:
    """The object at ``path``, importing only this project's modules."""
    parts = path.split(".")
    if parts[0] not in PACKAGES:
        return None
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj
    return None


def canonical_name(obj: object) -> str | None:
    """Where ``obj`` is documented: its defining module and qualified name, if that
    module is one of this project's."""
    home, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(home, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    return f"{home}.{qualname}" if home.split(".")[0] in PACKAGES else None


def resolve_by_import(app, env, node, contnode):  # type: ignore[no-untyped-def]
    """A ``missing-reference`` handler: a Python cross-reference Sphinx cannot find by
    name (``protocol.Action``, re-exported; ``GameView``, imported into the module that
    names it) is looked up as Python would and linked to where the object is documented."""
    if node.get("refdomain") != "py":
        return None
    obj = find_object(node["reftarget"], node.get("py:module"), node.get("py:class"))
    name = canonical_name(obj) if obj is not None else None
    if name is None or name == node["reftarget"]:
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], name, node, contnode
    )
