"""Where the first opening of a finished match's viewer page on the server goes, before
and after the page stopped replaying the whole match, in one run.

A ``--hands``-hand match of four built-in random bots is played on a real
``python -m sdk.server`` of this tree (loopback, a temporary database). Then, in this
process, on the match read from that database, each phase of the first opening is timed
``--repeats`` times (medians):

* reading: the match's JSON lines (as the store holds them) parsed one ``json.loads`` a
  line, as the store did before, against one call for them all, as it does now;
* before: the whole record (:func:`sdk.server.recordlog.record_of`: every decision
  replayed on the referee, what ``log.jsonl`` serves), then the page with hand 1;
* after: the record without replaying (:func:`~sdk.server.recordlog.record_parts`),
  then the page with hand 1, whose decisions alone are replayed.

Run: ``nice -n 10 python benchmarks/bench_view_open.py [--hands 400] [--repeats 5]``.
The browser's side (paint, time to interactive) is ``benchmarks/bench_viewer.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sdk.replay.html import page_html
from sdk.replay.viewdata import ViewerData
from sdk.server.recordlog import record_of, record_parts
from sdk.server.store import Store, StoredMatch

SOURCE = {"url": "view/hands/", "query": ""}


def stored_match(hands: int, tmp: Path) -> StoredMatch:
    """A finished ``hands``-hand match played on a real server, read back from its store."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_viewer import real_server

    root = Path(__file__).resolve().parents[1]
    db = tmp / "db.sqlite"
    with real_server(root, db, hands) as url:
        match_id = url.rsplit("/", 2)[-2]
    store = Store(str(db))
    store.start()
    try:
        found = store.load_match(match_id).result()
    finally:
        store.close()
    assert found is not None
    return found


def timed(work: Callable[[], Any], repeats: int) -> float:
    """The median of ``repeats`` runs of ``work``, in ms."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def page_before(stored: StoredMatch) -> str:
    data = ViewerData(record_of(stored))
    return page_html(data, source=SOURCE, first=data.hand(0))


def page_after(stored: StoredMatch) -> str:
    record, decisions = record_parts(stored)
    data = ViewerData(record, decisions=decisions.hand)
    return page_html(data, source=SOURCE, first=data.hand(0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stored = stored_match(args.hands, Path(tmp))
    lines = "\n".join(json.dumps(e, separators=(",", ":")) for e in stored.events)
    lines += "\n" + "\n".join(json.dumps(d, separators=(",", ":")) for d in stored.decisions)
    per_line = timed(lambda: [json.loads(x) for x in lines.split("\n") if x], args.repeats)
    one_call = timed(lambda: json.loads("[" + lines.replace("\n", ",") + "]"), args.repeats)
    before = timed(lambda: page_before(stored), args.repeats)
    after = timed(lambda: page_after(stored), args.repeats)
    assert page_before(stored) == page_after(stored), "the same page either way"
    print(
        f"{args.hands} hands, {len(stored.events)} events, {len(stored.decisions)} decisions, "
        f"{len(lines) / 1e6:.1f} MB of JSON lines; medians of {args.repeats}:"
    )
    print(f"  JSON lines parsed: one a line {per_line:.0f} ms, in one call {one_call:.0f} ms")
    print(f"  record and page, whole match replayed (before): {before:.0f} ms")
    print(f"  record and page, hand 1 replayed (after): {after:.0f} ms")
    print(
        f"  after / before: parse {one_call / per_line:.2f}, record and page {after / before:.2f},"
        f" both {(one_call + after) / (per_line + before):.2f}"
    )


if __name__ == "__main__":
    main()
