"""Benchmark the browser viewer on a long match: page weight, first paint and time to
interactive in Debian's chromium, the viewer of ``main`` against this one, in one run.

A 400-hand match of four ``bots.random`` is played by the arena and its record saved.
A local HTTP server (stdlib, loopback) then serves, for each viewer, what the tournament
server would: the page, built when asked (the time to serve is part of the figures),

* old: ``main``'s ``sdk/replay`` (``git show main:sdk/replay/...``, loaded as a package
  of its own): every frame of every hand inline in the page;
* new: this tree's server page (:func:`sdk.replay.html.page_html` with hand 1 inside,
  the other hands at ``view/hands/{h}``, as :mod:`sdk.replay.serve` does), and the
  self-contained file of ``sdk.replay --html`` (every hand inside, gzip, decoded when
  shown).

Each page is opened ``--repeats`` times in a fresh headless chromium tab (cache off);
the figures are medians: bytes received before the page is interactive (the document
and anything fetched before), the time to the first contentful paint, and the time to
interactive (the viewer's ``viewer-ready`` mark, or the end of DOMContentLoaded for the
old page, whose script ran inline), and then the time to show the last hand (End).
The loading of the record from the database is the same for both and left out.

Run: ``nice -n 10 python benchmarks/bench_viewer.py [--hands 400] [--repeats 3]``
(needs /usr/bin/chromium, /usr/bin/chromedriver and the ``main`` branch in git).
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import importlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sdk.arena import run_arena
from sdk.records import Record
from sdk.replay import load_record
from sdk.replay.html import page_html, render_html
from sdk.replay.viewdata import ViewerData

OLD_FILES = ("__init__.py", "html.py", "frames.py", "viewer.html", "viewer.css", "viewer.js")

_TIMING_JS = """
const nav = performance.getEntriesByType('navigation')[0];
const paint = performance.getEntriesByName('first-contentful-paint')[0];
const ready = performance.getEntriesByName('viewer-ready')[0];
const interactive = ready ? ready.startTime : nav.domContentLoadedEventEnd;
const fetched = performance.getEntriesByType('resource')
  .filter((r) => r.responseEnd <= interactive).reduce((n, r) => n + r.decodedBodySize, 0);
return {bytes: nav.decodedBodySize + fetched, paint: paint ? paint.startTime : null,
        interactive: interactive, served: nav.responseStart};
"""


def play(hands: int, out: Path) -> Record:
    """A ``hands``-hand match of four random bots, its record saved and read back."""
    run_arena(
        ["bots.random"] * 4, hands=hands, match_hands=hands, backend="local", seed=1, save_logs=out
    )
    path = next(p for p in sorted(out.rglob("*.jsonl")))
    return load_record(str(path))


def old_viewer(root: Path) -> Callable[[Record], str]:
    """``main``'s ``render_html``, from git, as the package ``oldreplay``."""
    package = root / "oldreplay"
    package.mkdir()
    for name in OLD_FILES:
        text = subprocess.run(
            ["git", "show", f"main:sdk/replay/{name}"], capture_output=True, text=True, check=True
        ).stdout
        if name.endswith(".py"):
            text = text.replace("sdk.replay.frames", "oldreplay.frames")
            text = text.replace('files("sdk.replay")', 'files("oldreplay")')
            if name == "__init__.py":
                text = '"""main\'s viewer."""\n'
        (package / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(root))
    return importlib.import_module("oldreplay.html").render_html


class _Pages(http.server.BaseHTTPRequestHandler):
    """``/old``, ``/new/view`` (and ``/new/view/hands/{h}``), ``/file``: built when asked."""

    record: Record
    old: Callable[[Record], str]
    data: ViewerData | None = None
    file_page: str = ""

    def do_GET(self) -> None:
        path = self.path.split("#")[0]
        if path == "/old":
            body, kind = self.old(self.record).encode(), "text/html"
        elif path == "/new/view":
            data = _Pages.data = ViewerData(self.record)
            source = {"url": "view/hands/", "query": ""}
            body, kind = page_html(data, source=source, first=data.hand(0)).encode(), "text/html"
        elif path.startswith("/new/view/hands/") and self.data is not None:
            hand = self.data.hand(int(path.rsplit("/", 1)[1]))
            body, kind = json.dumps(hand, separators=(",", ":")).encode(), "application/json"
        elif path == "/file":
            body, kind = self.file_page.encode(), "text/html"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serving(record: Record, old: Callable[[Record], str]) -> Iterator[str]:
    _Pages.record, _Pages.old = record, staticmethod(old)  # type: ignore[assignment]
    _Pages.file_page = render_html(record)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@contextmanager
def chromium() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    profile = tempfile.mkdtemp(prefix="bench-viewer-")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,1000")
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(120)
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    try:
        yield driver
    finally:
        driver.quit()


def measure(driver: Any, url: str, last_step: int) -> dict[str, float]:
    """One opening of ``url``: bytes, paint, interactive, then End to the last hand."""
    driver.get("about:blank")
    driver.get(url)
    _until(driver, "return document.body && document.body.dataset.ready === '1'")
    _until(driver, "return performance.getEntriesByName('first-contentful-paint').length > 0")
    timing = driver.execute_script(_TIMING_JS)
    start = time.perf_counter()
    driver.execute_script("document.getElementById('last').click()")
    _until(driver, f"return document.body.dataset.step === '{last_step}'")
    timing["last_hand"] = (time.perf_counter() - start) * 1000
    return timing


def _until(driver: Any, script: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not driver.execute_script(script):
        if time.monotonic() > deadline:
            raise TimeoutError(script)
        time.sleep(0.01)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read())


@contextmanager
def real_server(pythonpath: Path, db: Path, hands: int) -> Iterator[str]:
    """``python -m sdk.server`` of the tree at ``pythonpath`` (loopback), with one
    finished ``hands``-hand match of four built-in random bots (seed 1): its view URL."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    command = [sys.executable, "-m", "sdk.server", "--port", str(port), "--db", str(db)]
    server = subprocess.Popen(
        [*command, "--log-level", "error"],
        env=env,
        cwd=db.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                _get(base + "/v1/health")
                break
            except OSError:
                time.sleep(0.1)
        seats = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]
        table = _get(base + "/v1/tables", {"seed": 1, "hands": hands, "seats": seats})
        while _get(f"{base}/v1/tables/{table['table_id']}")["status"] != "finished":
            time.sleep(0.5)
        yield f"{base}/v1/matches/{table['match_id']}/view"
    finally:
        server.terminate()
        server.wait(10)


def main_tree(root: Path, ref: str = "main") -> Path:
    """The packages of git ``ref`` (``git archive``), to run its server."""
    root.mkdir()
    archive = subprocess.run(
        ["git", "archive", ref, "sdk", "protocol", "bots"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def bench_servers(
    hands: int, repeats: int, tmp: Path, base: str = "main"
) -> dict[str, list[dict[str, float]]]:
    """The real servers, git ``base``'s and this tree's, each with the same match: the
    first opening (cold: the record is read from the database) and the others."""
    here = Path(__file__).resolve().parents[1]
    trees = {"old server": main_tree(tmp / "main", base), "new server": here}
    runs: dict[str, list[dict[str, float]]] = {}
    with contextlib.ExitStack() as stack:
        urls = {}
        for name, tree in trees.items():
            (tmp / name).mkdir()
            urls[name] = stack.enter_context(real_server(tree, tmp / name / "db.sqlite", hands))
        steps = _get(urls["new server"].replace("/view", "/log"))
        last = len(steps["events"])
        driver = stack.enter_context(chromium())
        for name, url in urls.items():
            runs[name] = [measure(driver, url, last) for _ in range(repeats + 1)]
    return runs


def report(runs: dict[str, list[dict[str, float]]], old: str) -> None:
    """One line of medians a page, then each against ``old``."""
    print(
        f"{'page':<16}{'MB':>8}{'served ms':>11}{'paint ms':>10}{'interactive ms':>16}{'End ms':>9}"
    )
    medians = {}
    for name, found in runs.items():
        med = {k: statistics.median(r[k] for r in found) for k in found[0]}
        medians[name] = med
        print(
            f"{name:<16}{med['bytes'] / 1e6:>8.2f}{med['served']:>11.0f}{med['paint']:>10.0f}"
            f"{med['interactive']:>16.0f}{med['last_hand']:>9.0f}"
        )
    base = medians[old]
    for name, new in medians.items():
        if name != old:
            print(
                f"  {name} / {old}: bytes {new['bytes'] / base['bytes']:.3f}, paint "
                f"{new['paint'] / base['paint']:.3f}, interactive "
                f"{new['interactive'] / base['interactive']:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-servers", action="store_true", help="skip the real servers")
    parser.add_argument(
        "--server-base", default="main", help="the git ref whose server is the old one"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        record = play(args.hands, Path(tmp) / "logs")
        print(
            f"{args.hands} hands, {len(record.events)} events, {record.steps} steps "
            f"(played in {time.perf_counter() - started:.1f} s)"
        )
        old = old_viewer(Path(tmp))
        pages = {"old (main)": "/old", "new (server)": "/new/view", "new (file)": "/file"}
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in pages}
        with serving(record, old) as base, chromium() as driver:
            for _ in range(args.repeats):  # interleaved: they share the machine's load
                for name, path in pages.items():
                    runs[name].append(measure(driver, base + path, record.steps - 1))
        print("pages built when asked (stdlib server, record in memory), medians:")
        report(runs, "old (main)")
        if args.no_servers:
            return
        served = bench_servers(args.hands, args.repeats, Path(tmp), args.server_base)
    print(f"the real sdk.server of {args.server_base} and of this tree, same match (seed 1):")
    split = {}
    for name, found in served.items():
        split[f"{name}, 1st"] = found[:1]
        split[f"{name}, next"] = found[1:]
    report(split, "old server, 1st")


if __name__ == "__main__":
    main()
