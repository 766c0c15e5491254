"""The terminal replay: printed hands, one seat's view, keyboard stepping, and one-line
errors for bad records, missing files and unknown URLs."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bots.greedy import GreedyBot
from protocol.events import Draw
from sdk.local import play_match
from sdk.records import Record, encode_record
from sdk.replay import Stepper
from sdk.replay.__main__ import main


@pytest.fixture(scope="module")
def record() -> Record:
    result = play_match([GreedyBot() for _ in range(4)], seed=3, hands=2, record=True)
    assert result.record is not None and result.record.hands[0].result.winner is not None
    return result.record


@pytest.fixture
def path(record: Record, tmp_path: Path) -> Path:
    out = tmp_path / "game.jsonl"
    out.write_text(encode_record(record), encoding="utf-8")
    return out


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main([*argv, "--width", "200"])
    out, err = capsys.readouterr()
    return code, out, err


def test_print_shows_events_decisions_table_and_tai(
    record: Record, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run([str(path), "--hand", "1", "--print"], capsys)
    assert code == 0
    first = next(d for d in record.decisions)
    assert f"chose {first.applied}" in out and "options: discard" in out
    assert "is dealt 17 tiles:" in out and "wall" in out and "river" in out
    win = record.hands[0].result
    for item in win.score["items"]:  # type: ignore[index]
        assert item["name"] in out
    assert f"{win.score['total_tai']} tai" in out  # type: ignore[index]


def test_one_seats_view_hides_the_others_tiles_and_decisions(
    record: Record, path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run([str(path), "--hand", "1", "--seat", "1", "--print"], capsys)
    assert code == 0
    assert "greedy (seat 1) chose" in out
    assert "greedy (seat 2) chose" not in out
    other_draw = next(e for e in record.events if type(e) is Draw and e.seat == 2)
    assert "greedy (seat 2) draws a tile" in out
    assert f"greedy (seat 2) draws {other_draw.tile}\n" not in out
    assert " concealed" in out  # the other seats' hands are only counted


def test_chinese_tiles(record: Record, path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([str(path), "--hand", "1", "--print", "--chinese"], capsys)
    win = record.hands[0].result
    assert code == 0 and win.win_tile is not None and win.win_tile.chinese in out


def test_step_prints_the_table_at_that_step(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([str(path), "--step", "5"], capsys)
    assert code == 0 and "hand 1 · step 5/" in out
    code, out, _ = _run([str(path), "--hand", "2", "--step", "0"], capsys)
    assert code == 0 and "hand 2 · step 0/" in out


def test_keyboard_stepping_stays_in_the_hand_and_jumps_to_decisions(record: Record) -> None:
    s = Stepper(record, hand=0)
    assert s.step == 1
    s.press("left")
    assert s.step == 1
    s.press("d")
    assert s.step == record.decisions[0].after_event
    s.press("end")
    assert s.step == record.hand_steps(0).stop
    s.press("right")
    assert s.step == record.hand_steps(0).stop
    s.press("]")
    assert s.hand == 1 and s.step == record.hand_steps(1).start + 1
    s.press("[")
    assert s.hand == 0
    assert s.press("q") is False


# --- bad input ---------------------------------------------------------------------------


def _one_line(err: str) -> str:
    line = err.strip()
    assert line.startswith("error:") and "\n" not in line and "Traceback" not in line
    return line


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([str(tmp_path / "nope.jsonl")], capsys)
    assert code == 2 and "no such file" in _one_line(err)


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda t: t[: len(t) // 2], "truncated"),
        (lambda t: t.replace('"type":"event"', '"type":"evnt"', 1), "corrupt"),
        (lambda t: t.replace('"version":1', '"version":7', 1), "version 7"),
        (lambda t: "\x00\xff garbage\n", "corrupt"),
    ],
)
def test_bad_records_are_bad_data(
    path: Path, damage: object, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path.write_text(damage(path.read_text()), encoding="utf-8")  # type: ignore[operator]
    code, _, err = _run([str(path)], capsys)
    assert code == 1 and words in _one_line(err)


def test_a_hand_out_of_range_is_a_usage_error(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run([str(path), "--hand", "9"], capsys)
    assert code == 2 and "hands 1..2" in _one_line(err)
    code, _, err = _run([str(path), "--hand", "0"], capsys)
    assert code == 2 and "hands 1..2" in _one_line(err)
    code, _, err = _run([str(path), "--hand", "2", "--step", "999"], capsys)
    assert code == 2 and "hand 2 has steps 0.." in _one_line(err)


@pytest.fixture
def http_server(path: Path) -> Iterator[str]:
    text = path.read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            known = self.path == "/v1/matches/m1/log.jsonl"
            body = text if known else json.dumps({"error": "not found"}).encode()
            self.send_response(200 if known else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_a_url_is_fetched_and_an_unknown_one_is_a_usage_error(
    http_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run([f"{http_server}/v1/matches/m1", "--hand", "1", "--print"], capsys)
    assert code == 0 and "hand 1: dealer" in out
    code, _, err = _run([f"{http_server}/v1/matches/nope"], capsys)
    assert code == 2 and "no such match" in _one_line(err)


def test_an_unreachable_server_is_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = _run([f"http://127.0.0.1:{port}/v1/matches/m1"], capsys)
    assert code == 1 and "cannot reach" in _one_line(err)


def test_html_writes_the_browser_viewer(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sdk.replay import load_record
    from sdk.replay.html import render_html

    out = tmp_path / "out.html"
    code, _, err = _run([str(path), "--html", str(out), "--seat", "2"], capsys)
    assert code == 0 and f"wrote {out}" in err
    assert out.read_text(encoding="utf-8") == render_html(load_record(str(path)), seat=2)


@pytest.mark.parametrize("width", ["0", "-3", "19", "wide"])
def test_a_width_too_narrow_or_not_a_number_is_a_usage_error(
    path: Path, width: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a width of 0 printed nothing and exited 0
    with pytest.raises(SystemExit) as info:
        main([str(path), "--print", "--width", width])
    assert info.value.code == 2
    assert "error: argument --width:" in capsys.readouterr().err
