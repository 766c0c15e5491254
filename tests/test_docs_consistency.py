"""The documents agree with the code (issue 18).

Every Markdown file of the repository is read (README, docs/, protocol/PROTOCOL.md,
bots/README.md, and whatever is added later) and checked for:

* commands: each ``python -m MODULE`` names a module that exists, each ``python FILE.py``
  a file of the repository or a bot (then the options are the bot command line's), and
  every ``--option`` given to one of the project's commands is an option of that command
  (it appears as a literal in the command's source);
* options quoted alone (```--no-clock```) exist in some command of the project;
* links and file names: every relative link resolves to a file inside the repository,
  every path into one of the repository's folders exists, every ``NAME.md`` named exists,
  and nothing points outside the repository;
* ports: a URL to the local server uses its default port unless ``--port`` says otherwise;
* limits quoted in prose equal the code's (frame and line sizes, rates, the server's
  option defaults).
"""

from __future__ import annotations

import importlib.util
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from sdk.server.config import ServerConfig
from sdk.transports.ws import WsOptions

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {".venv", "site", ".git", "node_modules", ".pytest_cache", ".ruff_cache", "build"}
CODE_DIRS = ("protocol", "sdk", "bots", "benchmarks", "scripts", "examples")
EXTERNAL = {"pip", "pytest", "sphinx", "venv", "ruff", "http.server", "json.tool", "cProfile"}
"""Modules of other projects run with ``python -m`` (their options are theirs)."""
PENDING: set[str] = set()
"""Commands announced in NEWS.md by another issue and documented before their code landed
(none now). ``test_pending_commands_are_still_missing``
fails as soon as one exists: then remove it from here, and its options are checked."""
EXTERNAL_OPTIONS = {"--keep-going", "--doctest-modules", "--upgrade", "--user", "--editable"}
"""Options of other tools that documents quote alone."""


def documents() -> list[Path]:
    """Every Markdown file of the repository, outside tool folders."""
    return sorted(
        p for p in ROOT.rglob("*.md") if not SKIP_DIRS & set(p.relative_to(ROOT).parts[:-1])
    )


DOCS = documents()
_FENCE = re.compile(r"^```([\w:+-]*)[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    return _FENCE.sub("", text)


def inline_spans(text: str) -> list[str]:
    """The inline code spans outside fenced blocks."""
    return _INLINE.findall(_prose(text))


def command_lines(text: str) -> Iterator[str]:
    """Shell command lines: from shell (or unlabeled) fences and inline spans."""
    for lang, body in _FENCE.findall(text):
        if lang in ("", "sh", "bash", "console", "shell", "text"):
            for line in body.splitlines():
                line = line.strip().removeprefix("$ ")
                if line.startswith(("python", "taimahjong-", "pip ")):
                    yield line
    for span in inline_spans(text):
        if span.startswith(("python ", "python3 ")) or re.match(r"taimahjong-[\w-]+( |$)", span):
            yield span


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split("#")[0].split()


def _scripts() -> dict[str, str]:
    text = (ROOT / "pyproject.toml").read_text()
    return dict(re.findall(r'^(taimahjong-[\w-]+) = "([\w.]+):\w+"', text, re.M))


def _module_sources(module: str) -> list[Path] | None:
    """The source files whose literals hold ``module``'s options; None if it is missing."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    origin = Path(spec.origin)
    if origin.name == "__init__.py" and not (origin.parent / "__main__.py").is_file():
        return None  # a package without __main__ cannot run with python -m
    own = sorted(origin.parent.glob("*.py")) if origin.name == "__init__.py" else [origin]
    for runs in re.findall(r"from ([\w.]+) import main\b", origin.read_text(encoding="utf-8")):
        found = importlib.util.find_spec(runs)  # the command line lives in another module
        if found is not None and found.origin is not None:
            own.append(Path(found.origin))
    if module.startswith("bots."):  # a bot: the common command line, plus its own options
        return [ROOT / "sdk" / "cli.py", *own]
    return own


def _target(words: list[str]) -> tuple[str, list[Path] | None] | None:
    """What a command runs and where its options are defined; None for other tools."""
    if words and words[0].startswith("taimahjong-"):
        module = _scripts().get(words[0])
        return words[0], None if module is None else _module_sources(module)
    if len(words) < 2 or words[0] not in ("python", "python3"):
        return None
    if words[1] == "-m" and len(words) > 2:
        module = words[2]
        if module.split(".")[0] in EXTERNAL or module in EXTERNAL or module in PENDING:
            return None
        return module, _module_sources(module)
    if words[1].endswith(".py"):
        path = ROOT / words[1]
        if path.is_file():
            return words[1], [path]
        return words[1], [ROOT / "sdk" / "cli.py"]  # a bot of one's own: the bot command line
    return None


def _options(words: list[str]) -> list[str]:
    found = []
    for word in words:
        if word == "--":
            break  # what follows is another program's command line
        word = word.strip("[](),;")
        if re.fullmatch(r"--[a-z][\w-]*(=.*)?", word):
            found.append(word.split("=")[0])
    return found


def _defined(option: str, sources: list[Path]) -> bool:
    if option == "--help":
        return True  # every argparse command has it
    return any(
        f'"{option}"' in p.read_text(encoding="utf-8")
        or f"'{option}'" in p.read_text(encoding="utf-8")
        for p in sources
    )


def _all_sources() -> list[Path]:
    return [p for d in CODE_DIRS if (ROOT / d).is_dir() for p in (ROOT / d).rglob("*.py")]


def _rel(doc: Path) -> str:
    return str(doc.relative_to(ROOT))


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_commands_and_their_options_exist(doc: Path) -> None:
    problems = []
    for line in command_lines(doc.read_text(encoding="utf-8")):
        for part in re.split(r"&&|\|\|?|;", line):
            words = _words(part.strip())
            target = _target(words)
            if target is None:
                continue
            name, sources = target
            if sources is None:
                problems.append(f"{name}: no such command ({line})")
                continue
            problems += [
                f"{name} has no option {o} ({line})"
                for o in _options(words)
                if not _defined(o, sources)
            ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_options_quoted_alone_exist(doc: Path) -> None:
    sources = _all_sources()
    quoted = {
        span.split()[0].split("=")[0]
        for span in inline_spans(doc.read_text(encoding="utf-8"))
        if re.match(r"--[a-z][\w-]*", span)
    }
    missing = sorted(o for o in quoted - EXTERNAL_OPTIONS if not _defined(o, sources))
    assert not missing, f"options no command of the project has: {missing}"


_PATH = re.compile(r"^\.?/?((?:[\w.-]+/)+[\w.*-]*)$")


def _named_files(text: str) -> Iterator[str]:
    for span in inline_spans(text):
        for word in span.split():
            word = word.strip("(),;:`'\"")
            if _PATH.match(word) or re.fullmatch(r"[\w-]+\.md(#[\w-]+)?", word):
                yield word


def _outside(target: str) -> bool:
    return target.startswith(("/work/", "/home/", "/tmp/", "~/", "shared/"))


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_links_and_files_named_resolve_inside_the_repo(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    problems = []
    for target in _LINK.findall(_prose(text)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        if ROOT not in path.parents and path != ROOT:
            problems.append(f"link {target} leaves the repository")
        elif not path.exists():
            problems.append(f"link {target}: no such file")
    tops = {p.name for p in ROOT.iterdir() if p.is_dir()}
    for name in _named_files(text):
        if _outside(name):
            problems.append(f"{name} is outside the repository")
            continue
        if name.startswith("./") and name.count("/") == 1:
            continue  # a file of the reader's own, such as ./mybot.py
        name = name.split("#")[0]
        if "*" in name or name.startswith("/"):
            continue
        if "/" in name and name.split("/")[0] in tops:
            if not (ROOT / name).exists():
                problems.append(f"{name}: no such file or folder")
        elif "/" not in name and not any(
            (d / name).exists() for d in (doc.parent, ROOT, ROOT / "docs")
        ):
            problems.append(f"{name}: no such document in the repository")
    assert not problems, "\n".join(problems)


_URL = re.compile(r"(?:ws|http)s?://(?:127\.0\.0\.1|localhost):(\d+)")


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_local_server_urls_use_its_port(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    chosen = set(re.findall(r"--port[ =](\d+)", text))
    default = str(ServerConfig().port)
    wrong = {port for port in _URL.findall(text) if port != default and port not in chosen}
    assert not wrong, f"server URLs on port {sorted(wrong)}; the server listens on {default}"


def _kib(n: int) -> str:
    return str(n // 1024)


LIMITS = [
    ("docs/SERVER.md", r"`max_frame_bytes`: a WebSocket frame \| (\d+) KiB",
     _kib(ServerConfig().max_frame_bytes)),
    ("docs/SERVER.md", r"`max_line_bytes`: a line-protocol line \| (\d+) KiB",
     _kib(ServerConfig().max_line_bytes)),
    ("docs/SERVER.md", r"on top of one per answer asked \| (\d+), bursts of \d+",
     f"{ServerConfig().rate_per_second:g}"),
    ("docs/SERVER.md", r"on top of one per answer asked \| \d+, bursts of (\d+)",
     str(ServerConfig().rate_burst)),
    ("protocol/PROTOCOL.md", r"server accepts client frames of at most (\d+) KiB",
     _kib(ServerConfig().max_frame_bytes)),
    ("protocol/PROTOCOL.md", r"client accepts server frames of up to (\d+) MiB",
     str(WsOptions().max_size // 2**20)),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "pattern", "value"), LIMITS)
def test_limits_quoted_equal_the_code(doc: str, pattern: str, value: str) -> None:
    text = " ".join((ROOT / doc).read_text(encoding="utf-8").split())
    quoted = re.findall(pattern, text)
    assert quoted, f"{doc} no longer says {pattern!r}"
    assert set(quoted) == {value}, f"{doc}: {pattern!r} quotes {quoted}, the code says {value}"


def test_server_option_defaults_in_docs_equal_the_parser() -> None:
    from sdk.server.__main__ import parser

    defaults = {a.option_strings[-1]: a.default for a in parser()._actions if a.option_strings}
    text = (ROOT / "docs" / "SERVER.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(--[\w-]+)[^`]*` \| `?([^|`]*?)`? \|", text, re.M)
    assert len(rows) > 5
    wrong = []
    for option, quoted in rows:
        default = defaults.get(option)
        if isinstance(default, list):  # as it is typed: CIDR CIDR
            default = " ".join(map(str, default))
        if quoted.strip() in ("", "off", "none", "random") or default is None:
            continue
        if str(default) != quoted.strip() and not _same_number(default, quoted.strip()):
            wrong.append(f"{option}: the document says {quoted.strip()}, the code {default}")
    assert not wrong, "\n".join(wrong)


def _same_number(a: object, b: str) -> bool:
    try:
        return float(a) == float(b)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def test_the_checks_catch_what_they_are_for(tmp_path: Path) -> None:
    text = (
        "Run `python -m sdk.arena greedy greedy greedy greedy --no-such-flag` or\n"
        "```sh\npython -m no_such_module_xyz --hands 3\n```\n"
        "See `RULINGS.md`, `docs/NOPE.md`, [x](../../outside.md), `shared/rules/x.txt`.\n"
    )
    lines = list(command_lines(text))
    assert len(lines) == 2
    arena = _target(_words(lines[1]))
    assert arena is not None and arena[1] is not None
    assert not _defined("--no-such-flag", arena[1]) and _defined("--duplicate", arena[1])
    assert _target(_words(lines[0])) == ("no_such_module_xyz", None)
    assert list(_named_files(text)) == ["RULINGS.md", "docs/NOPE.md", "shared/rules/x.txt"]
    assert _outside("shared/rules/x.txt") and _LINK.findall(text) == ["../../outside.md"]


def test_honor_letters_and_init_game_are_documented_where_users_meet_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from protocol.analyze import main
    from protocol.tiles import Tile

    dragons = " ".join(Tile[x].chinese for x in "CFP")
    assert dragons == "中 發 白"
    assert f"`C F P` = {dragons}" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert main(["--help"]) == 0
    assert f"C F P = {dragons}" in " ".join(capsys.readouterr().out.split())
    tournament = (ROOT / "docs" / "cookbook" / "tournament.md").read_text(encoding="utf-8")
    fields = "`/initGame <table wind> <round wind> <n> <dealer> <repeat>`"
    assert fields in tournament and "C, F, P are the dragons 中 (red), 發 (green), 白" in tournament


def test_pending_commands_are_still_missing() -> None:
    landed = [m for m in sorted(PENDING) if _module_sources(m) is not None]
    assert not landed, f"python -m {landed} exist now: drop them from PENDING"
    assert _module_sources("no_such_module_xyz") is None and _module_sources("sdk.arena")


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _headline_rows() -> list[tuple[str, str]]:
    """The README's table of headline figures: (what, figure) for each row."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Performance", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (?!what |---)([^|]+)\| ([^|]+)\|", section, re.M)
    return [(what.strip(), figure.strip()) for what, figure in rows]


def test_readme_headline_figures_are_the_measured_ones() -> None:
    """Each number of the README's short table is quoted from docs/PERFORMANCE.md (or the
    page the row links to), where the full figure, its date and its command are."""
    rows = _headline_rows()
    assert len(rows) >= 5
    performance = (ROOT / "docs" / "PERFORMANCE.md").read_text(encoding="utf-8")
    wrong = []
    for what, figure in rows:
        linked = [ROOT / link.split("#")[0] for link in _LINK.findall(figure)]
        sources = performance + "".join(p.read_text(encoding="utf-8") for p in linked)
        cell = _LINK.sub("", figure)
        wrong += [f"{what}: {n}" for n in _NUMBER.findall(cell) if n not in sources]
    assert not wrong, f"README figures not in docs/PERFORMANCE.md: {wrong}"


def test_the_headline_check_reads_the_table() -> None:
    what, figure = _headline_rows()[0]
    assert what.startswith("win check") and _NUMBER.findall(figure) == ["0.30", "0.10"]
