"""The reviewer explains: the board as the seat saw it, the candidates with a reference's
``explain`` values (every key a column), costs as value(best) - value(chosen) ranking
the costliest list, the measured fallback without ``explain``, and places that open in
the replay and the viewer."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from bots.greedy import GreedyBot
from protocol.actions import Action
from sdk.bot import DecisionRequest
from sdk.local import play_match
from sdk.records import Record, encode_record
from sdk.replay.numbering import in_hand, match_step
from sdk.review import review_html, review_record
from sdk.review.__main__ import main
from sdk.view import GameView


class Explaining(GreedyBot):
    """Greedy that also values every legal action: by notation order, 100 points apart
    (so the played action is often not the best), with one key of its own."""

    name = "explaining"

    def explain(
        self, view: GameView, request: DecisionRequest
    ) -> Sequence[tuple[Action, Mapping[str, float]]]:
        ranked = sorted(request.legal_actions, key=str)
        return [
            (a, {"value": 1000.0 - 100 * i, "win": 0.5 / (i + 1), "edge": float(i)})
            for i, a in enumerate(ranked)
        ]


class Broken(GreedyBot):
    name = "broken"

    def explain(self, view: GameView, request: DecisionRequest) -> list[object]:
        raise RuntimeError("no model loaded")


@pytest.fixture(scope="module")
def record() -> Record:
    result = play_match([GreedyBot() for _ in range(4)], seed=1, hands=3, record=True)
    assert result.record is not None
    return result.record


def test_explain_values_price_each_decision_and_rank_the_costliest(record: Record) -> None:
    review = review_record(record, 2, "bots.greedy", reference=Explaining)
    assert review.explained and review.decisions
    for d in review.decisions:
        assert d.explained and d.candidates[0][1]["value"] == 1000.0
        chosen = next(v["value"] for a, v in d.candidates if a is d.decision.applied)
        assert d.value_cost == 1000.0 - chosen
    worst = review.costliest()
    costs = [d.value_cost or 0 for d in worst]
    assert costs == sorted(costs, reverse=True)
    assert costs[0] == max(d.value_cost or 0 for d in review.decisions) > 0


def test_without_explain_the_candidates_are_measured(record: Record) -> None:
    review = review_record(record, 2, "bots.random")  # greedy, the default, has no explain
    assert not review.explained
    d = next(d for d in review.decisions if len(d.decision.legal) > 3)
    assert {a for a, _ in d.candidates} == set(d.decision.legal)
    assert all(set(v) == {"shanten", "accept"} for _, v in d.candidates)
    ranks = [(v["shanten"], -v["accept"]) for _, v in d.candidates]
    assert ranks[0] == min(ranks) and d.value_cost is None


def test_a_failing_explain_is_noted_and_the_review_goes_on(record: Record) -> None:
    review = review_record(record, 1, "bots.greedy", reference=Broken)
    assert review.decisions and not review.explained
    assert any("explain failed: RuntimeError: no model loaded" in d.note for d in review.decisions)
    assert all(d.candidates for d in review.decisions)


def test_the_board_is_what_the_seat_saw(record: Record) -> None:
    review = review_record(record, 0, "bots.greedy")
    for d in review.decisions:
        board = d.board
        assert board is not None and board.seat == 0
        own = len(board.hand) + (board.drawn is not None)
        assert own == board.seats[0].concealed
        assert [len(s.river) for s in board.seats] and board.wall > 0
    later = review.decisions[-1].board
    assert later is not None and any(s.river for s in later.seats)


def test_the_html_shows_board_candidates_columns_and_viewer_links(record: Record) -> None:
    review = review_record(record, 2, "bots.greedy", reference=Explaining)
    page = review_html(review, "game.viewer.html")
    for label in ("value (exp. points)", "P(win)", "edge", "river (* claimed)", "candidates"):
        assert label in page
    links = re.findall(r'href="game\.viewer\.html#hand=(\d+)&amp;step=(\d+)"', page)
    assert len(links) == len(review.decisions)
    for d, (hand, step) in zip(review.decisions, links, strict=True):
        assert (int(hand), int(step)) == (d.hand + 1, d.hand_step)
        assert match_step(record, d.hand, d.hand_step) == d.step  # the viewer's table at it
        assert in_hand(record, d.step) == (d.hand, d.hand_step)
    # the costliest list ranks by value lost, not by deal-ins alone
    worst = review.costliest()[0]
    first = page.index("<h2>Decisions that cost the most</h2>")
    assert f">{worst.where}</a>" in page[first : first + 600]


def test_the_terminal_review_explains_and_its_commands_open_the_place(
    record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sdk.replay.__main__ import main as replay

    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(record), encoding="utf-8")
    assert main([str(path), "--seat", "2", "--bot", "greedy", "--width", "220"]) == 0
    out = capsys.readouterr().out
    assert "candidates, best first" in out and "seen by seat 2" in out
    commands = re.findall(rf"open: python -m sdk.replay {re.escape(str(path))} (.*)", out)
    assert commands
    argv = commands[0].split()
    assert replay([str(path), *argv, "--width", "200"]) == 0
    hand, step = argv[1], argv[3]
    assert f"hand {hand} · step {step}/" in capsys.readouterr().out


def test_output_to_a_file_keeps_whole_lines(record: Record, tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(record), encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run(
        [sys.executable, "-m", "sdk.review", str(path), "--seat", "0", "--bot", "greedy"],
        capture_output=True, text=True, cwd=root, timeout=300,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("│ hand")]
    assert rows and all(line.rstrip().endswith("│") for line in rows)
    assert max(map(len, run.stdout.splitlines())) > 80


def test_a_closed_pipe_ends_the_review_quietly(record: Record, tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "g.jsonl"
    path.write_text(encode_record(record), encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    shell = f"{sys.executable} -m sdk.review {path} --seat 1 --bot greedy --all | head -n 3"
    run = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, cwd=root,
        timeout=300, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert run.returncode == 0 and run.stderr == "" and len(run.stdout.splitlines()) == 3


def test_a_record_from_a_server_links_into_the_servers_viewer(
    record: Record, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import http.server
    import threading

    body = encode_record(record).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200 if self.path == "/v1/matches/m1/log.jsonl" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/v1/matches/m1"
        out = tmp_path / "r.html"
        assert main([base, "--seat", "0", "--bot", "greedy", "--html", str(out)]) == 0
    finally:
        server.shutdown()
        server.server_close()
    capsys.readouterr()
    page = out.read_text(encoding="utf-8")
    assert f'href="{base}/view#hand=1&amp;step=' in page
    assert not (tmp_path / "r.viewer.html").exists()  # the server's page, none written
