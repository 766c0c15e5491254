"""Bounded, compact storage; a full disk is a state (issue #32 item 4).

A finished match's hands are packed into one compressed row, and its record is served
byte for byte as it was from the per-hand rows. The retention policy prunes old logs by
age and by size (rows and results stay). When the database cannot be written, tested
both by SQLite's own limit (``max_page_count``: a real ``SQLITE_FULL``) and on a small
tmpfs filled to the last byte: one log line, no traceback, new tables refused, the
running match ends ``incomplete`` with no record, ``/v1/health`` says so, and storing
resumes when there is room again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sdk.server.config import ServerConfig
from sdk.server.export import main as export_main
from sdk.server.packing import CODEC, unpack
from sdk.server.retention import LOW, Retention, enforce, trim, used_bytes
from sdk.server.runner import running_server
from sdk.server.store import MatchRow, Store
from sdk.server.writestate import WriteState

SEATS = [{"seat": s, "bot_name": "random", "transport": "builtin"} for s in range(4)]


async def _create(http: httpx.AsyncClient, seed: int, hands: int) -> dict:
    response = await http.post("/v1/tables", json={"seed": seed, "hands": hands, "seats": SEATS})
    assert response.status_code == 201, response.text
    return response.json()  # type: ignore[no-any-return]


async def _ended(http: httpx.AsyncClient, table_id: str) -> dict:
    for _ in range(1200):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["status"] in ("finished", "aborted", "incomplete"):
            return status  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"{table_id} did not end")


async def _hand(http: httpx.AsyncClient, table_id: str, hand_no: int) -> None:
    for _ in range(1200):
        status = (await http.get(f"/v1/tables/{table_id}")).json()
        if status["hand_no"] >= hand_no:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{table_id} did not reach hand {hand_no}")


async def _health(http: httpx.AsyncClient, want: str, seconds: float = 15) -> dict:
    for _ in range(int(seconds / 0.1)):
        health = (await http.get("/v1/health")).json()
        if health["status"] == want:
            return health  # type: ignore[no-any-return]
        await asyncio.sleep(0.1)
    raise AssertionError(f"health never {want}: {health}")


# -- compact at rest, served unchanged --


async def test_a_finished_record_is_packed_and_served_byte_for_byte(tmp_path: Path) -> None:
    db = tmp_path / "league.db"
    config = ServerConfig(port=0, db_path=str(db))
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        created = await _create(http, 3, 8)
        assert (await _ended(http, created["table_id"]))["status"] == "finished"
        match = created["match_id"]
        packed = [
            (await http.get(f"/v1/matches/{match}/{p}")).content for p in ("log.jsonl", "log")
        ]
    with contextlib.closing(sqlite3.connect(db)) as con:
        codec, data, text = con.execute("SELECT codec, data, text_bytes FROM archive").fetchone()
        assert con.execute("SELECT count(*) FROM chunks").fetchone() == (0,)
        assert codec == CODEC and text >= 5 * len(data)  # the goal: at least 5x
        hands = unpack(data)  # as they were stored while the match ran: one row a hand
        with con:
            con.executemany(
                "INSERT INTO chunks VALUES (?,?,?,?)",
                [(match, i, events, decisions) for i, (events, decisions) in enumerate(hands)],
            )
            con.execute("DELETE FROM archive")
    config = ServerConfig(port=0, db_path=str(db), compress_records=False)
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        plain = [(await http.get(f"/v1/matches/{match}/{p}")).content for p in ("log.jsonl", "log")]
    assert plain == packed and len(packed[0]) > 10_000


# -- retention --


async def test_logs_older_than_keep_days_are_pruned_and_results_stay(tmp_path: Path) -> None:
    config = ServerConfig(port=0, db_path=str(tmp_path / "league.db"), keep_days=1.5 / 86400)
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        old = await _create(http, 4, 2)
        assert (await _ended(http, old["table_id"]))["status"] == "finished"
        await asyncio.sleep(2.0)
        new = await _create(http, 5, 2)
        assert (await _ended(http, new["table_id"]))["status"] == "finished"
        gone = await http.get(f"/v1/matches/{old['match_id']}/log.jsonl")
        assert gone.status_code == 410 and "pruned" in gone.json()["message"]
        kept = await http.get(f"/v1/matches/{new['match_id']}/log.jsonl")
        assert kept.status_code == 200
        listed = {t["match_id"]: t for t in (await http.get("/v1/tables")).json()["tables"]}
        assert listed[old["match_id"]]["status"] == "finished"  # its row and scores stay


def _fill(store_path: Path, matches: int, size: int) -> None:
    """``matches`` ended matches, each with a log of ``size`` incompressible bytes."""
    with contextlib.closing(sqlite3.connect(store_path, isolation_level=None)) as db:
        for n in range(1, matches + 1):
            db.execute(
                "INSERT INTO matches (serial, match_id, table_id, seed, hands, seat_names,"
                " config, status, created_at, finished_at) VALUES (?,?,?,0,1,'[]','{}',"
                "'finished',?,?)",
                (n, f"m-{n}", f"t-{n}", n, n),
            )
            db.execute(
                "INSERT INTO archive VALUES (?,?,?,?)", (f"m-{n}", CODEC, os.urandom(size), size)
            )


def test_past_the_size_limit_the_oldest_logs_are_pruned(tmp_path: Path) -> None:
    path = tmp_path / "league.db"
    store = Store(str(path))
    store.start()
    store.close()
    _fill(path, 40, 50_000)  # about 2 MB
    limit = 1 << 20
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        assert used_bytes(db) > limit
        pruned = enforce(db, Retention(max_bytes=limit))
        assert used_bytes(db) <= LOW * limit
        trim(db, 0)  # and the file gives the pruned pages back
        assert db.execute("PRAGMA freelist_count").fetchone() == (0,)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert path.stat().st_size <= LOW * limit + (64 << 10)
        kept = db.execute("SELECT match_id, log FROM matches ORDER BY serial").fetchall()
    assert [log for _, log in kept] == ["pruned"] * pruned + ["kept"] * (40 - pruned)
    assert 20 <= pruned < 40  # the oldest went, the newest stayed


# -- a full disk is a state --


def _storage_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("sdk.server.store")]


async def test_when_sqlite_is_full_the_server_says_so_once_and_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A real ``SQLITE_FULL`` injected at the SQLite layer: ``max_page_count`` set to the
    pages the file has now, so the next page it needs cannot be had."""
    caplog.set_level(logging.INFO)
    config = ServerConfig(port=0, db_path=str(tmp_path / "league.db"))
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        store = server.server.store
        created = await _create(http, 6, 48)
        await _hand(http, created["table_id"], 1)
        await asyncio.wrap_future(store.call(_cap_here))
        status = await _ended(http, created["table_id"])
        assert status["status"] == "incomplete" and status["hands"] == 48
        health = await _health(http, "degraded")
        assert "disk is full" in health["storage_error"]
        refused = await http.post("/v1/tables", json={"seed": 1, "hands": 1, "seats": SEATS})
        assert refused.status_code == 503 and "cannot be written" in refused.json()["message"]
        record = await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")
        assert record.status_code in (404, 410), record.text  # no record, said plainly
        await asyncio.wrap_future(
            store.call(lambda db: db.execute("PRAGMA max_page_count=1000000000"))
        )
        await _health(http, "ok")
        again = await _create(http, 7, 2)
        assert (await _ended(http, again["table_id"]))["status"] == "finished"
        assert (await http.get(f"/v1/matches/{again['match_id']}/log.jsonl")).status_code == 200
        stored = await server.server.stored_table(created["table_id"])
        assert stored is not None and stored.status == "incomplete"  # repaired once writable
    lines = _storage_lines(caplog)
    assert not any(r.exc_info for r in caplog.records), "no traceback"
    assert sum("cannot write" in r.getMessage() for r in lines) == 1, lines
    assert sum("writing again" in r.getMessage() for r in lines) == 1


def _cap_here(db: sqlite3.Connection) -> None:
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count={pages}")


@contextlib.contextmanager
def _small_fs(where: Path, size: str) -> Iterator[Path]:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill_disk(path: Path) -> None:
    """Write ``path`` until the filesystem has no byte left."""
    with path.open("wb", buffering=0) as f:
        block = b"\0" * 65536
        with contextlib.suppress(OSError):
            while True:
                f.write(block)
        with contextlib.suppress(OSError):
            while True:
                f.write(b"\0")


async def test_on_a_full_filesystem_the_server_says_so_and_resumes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The same on a real filesystem: a 4 MiB tmpfs filled to its last byte mid-match."""
    caplog.set_level(logging.INFO)
    with _small_fs(tmp_path / "small", "4m") as small:
        config = ServerConfig(port=0, db_path=str(small / "league.db"))
        async with (
            running_server(config) as server,
            httpx.AsyncClient(base_url=server.url) as http,
        ):
            created = await _create(http, 8, 48)
            await _hand(http, created["table_id"], 1)
            filler = small / "filler"
            await asyncio.to_thread(_fill_disk, filler)
            status = await _ended(http, created["table_id"])
            assert status["status"] == "incomplete"
            assert (await _health(http, "degraded"))["storage_error"]
            refused = await http.post("/v1/tables", json={"seed": 1, "hands": 1, "seats": SEATS})
            assert refused.status_code == 503
            filler.unlink()
            await _health(http, "ok")
            again = await _create(http, 9, 2)
            assert (await _ended(http, again["table_id"]))["status"] == "finished"
            url = f"/v1/matches/{again['match_id']}/log.jsonl"
            assert (await http.get(url)).status_code == 200
    assert not any(r.exc_info for r in caplog.records), "no traceback"
    assert sum("cannot write" in r.getMessage() for r in _storage_lines(caplog)) == 1


def test_while_writes_keep_failing_the_store_logs_one_line_a_minute() -> None:
    now = [0.0]
    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("test.writestate")
    logger.addHandler(Keep())
    logger.propagate = False
    state = WriteState(logger, clock=lambda: now[0])
    full = sqlite3.OperationalError("database or disk is full")
    full.sqlite_errorcode = 13  # type: ignore[attr-defined]
    for step in range(1500):  # 150 s of failing writes, ten a second
        now[0] = step / 10
        assert state.failed(full, "the disk is full")
    assert len(records) == 3 and "1 more" not in records[1]  # at 0 s, 60 s, 120 s
    state.succeeded()
    assert len(records) == 4 and "1500 writes failed" in records[3]


# -- export and prune --


async def test_export_writes_the_served_records_then_prunes_their_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "league.db"
    config = ServerConfig(port=0, db_path=str(db))
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        made = [await _create(http, seed, 2) for seed in (11, 12)]
        served = {}
        for created in made:
            assert (await _ended(http, created["table_id"]))["status"] == "finished"
            url = f"/v1/matches/{created['match_id']}/log.jsonl"
            served[created["match_id"]] = (await http.get(url)).content
        code = await asyncio.to_thread(export_main, [str(db), str(tmp_path / "out"), "--prune"])
        assert code == 0 and "exported 2 records" in capsys.readouterr().out
    for match_id, body in served.items():
        assert (tmp_path / "out" / f"{match_id}.jsonl").read_bytes() == body
    async with running_server(config) as server, httpx.AsyncClient(base_url=server.url) as http:
        for created in made:
            gone = await http.get(f"/v1/matches/{created['match_id']}/log.jsonl")
            assert gone.status_code == 410
            status = (await http.get(f"/v1/tables/{created['table_id']}")).json()
            assert status["status"] == "finished"  # the result stays


def test_export_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export_main([str(tmp_path / "none.db"), str(tmp_path / "out")]) == 2
    assert "no database" in capsys.readouterr().err
    db = tmp_path / "league.db"
    store = Store(str(db))
    store.start()
    store.close()
    (tmp_path / "file").write_text("")
    assert export_main([str(db), str(tmp_path / "file" / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot make") and err.count("\n") == 1


def test_an_end_nobody_waits_for_any_more_is_stored_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A table cancelled while its end is queued (the server stopping) cancels the
    future the store would answer: the end is still written, and nothing is logged."""
    store = Store(":memory:")
    store.start()
    gate = threading.Event()
    store.submit(lambda db: gate.wait(10))
    store.begin_match(MatchRow("m-1", "t-1", 1, 7, 1, ["a", "b", "c", "d"], {}))
    assert store.end_match("m-1", "finished", [1, -1, 0, 0], []).cancel()
    gate.set()
    rows = store.call(lambda db: db.execute("SELECT status FROM matches").fetchall()).result()
    store.close()
    assert rows == [("finished",)]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
