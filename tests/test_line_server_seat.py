"""The server side of the line protocol: asks, replies, tile ids and refusals (R17)."""

from __future__ import annotations

import pytest
from line_helpers import numbered_in_place_order

from protocol.actions import CONCEALED_KONG, DISCARD, PASS, PUNG, WIN
from protocol.hand_state import HandState
from protocol.line.adapter import Decided, LineReplyError, LineTable, NextAsk, ReadyReply
from protocol.tiles import Tile, parse_tiles
from protocol.wall import build_wall
from protocol.wire.common import RejectReason

DEALER = parse_tiles("123456789s EEE SSS W C")  # C is the 17th tile, the "drawn" one
SEAT1 = parse_tiles("123m 456m 789m 123p 55p CC")  # wins on C (or 5p), may pung C


def _table() -> tuple[HandState, LineTable, list[list[str]]]:
    pool = [k for k in Tile for _ in range(4)]
    for t in DEALER + SEAT1:
        pool.remove(t)
    hands = [DEALER, SEAT1, pool[:16], pool[16:32]]
    wall = build_wall(0, hands)
    hand = HandState.new(wall, dealer=0)
    table = LineTable(lambda _: numbered_in_place_order(wall))
    for seat in range(4):
        table.add_seat(seat, f"p{seat + 1}")
    received: list[list[str]] = [[], [], [], []]
    for ev in hand.events:
        for seat, lines in table.feed(ev).items():
            received[seat].extend(lines)
    return hand, table, received


def _play(hand: HandState, table: LineTable, seat: int, action: object) -> list[list[str]]:
    received: list[list[str]] = [[], [], [], []]
    for ev in hand.apply(seat, action):  # type: ignore[arg-type]
        for s, lines in table.feed(ev).items():
            received[s].extend(lines)
    return received


def test_the_deal_gives_each_seat_the_ids_of_its_places_in_the_wall() -> None:
    _, _, received = _table()
    assert received[0][0] == "/initGame East East 1 1 0"
    assert received[0][1] == (
        "/initCard 310 320 330 340 350 360 370 380 390 410 411 412 420 421 422 430 450"
    )
    assert received[1][1] == (
        "/initCard 110 120 130 140 150 160 170 180 190 210 220 230 250 251 451 452"
    )
    assert all(len(r) == 2 for r in received)


def test_own_turn_discard_with_a_wrong_id_then_the_right_one() -> None:
    hand, table, _ = _table()
    seat = table.seats[0]
    assert seat.request(hand.legal_actions(0)) == "/ask throw"
    with pytest.raises(LineReplyError) as info:
        seat.receive_line("/throw 451")  # a C, but seat 2's
    assert info.value.reason is RejectReason.NOT_LEGAL
    assert "451 is not in seat 1's hand" in str(info.value)
    assert not seat.deciding
    seat.request(hand.legal_actions(0))
    assert seat.receive_line("/throw 450\r\n") == Decided(DISCARD[Tile.C])
    received = _play(hand, table, 0, DISCARD[Tile.C])
    assert received == [["/throw 1 450"]] * 4


def test_claim_asks_follow_hu_then_pong_and_the_echo_uses_the_bots_ids() -> None:
    hand, table, _ = _table()
    _play(hand, table, 0, DISCARD[Tile.C])
    seat = table.seats[1]
    assert hand.legal_actions(1) == (WIN, PUNG, PASS)
    assert seat.request(hand.legal_actions(1), claim_tile=Tile.C) == "/ask hu"
    assert seat.receive_line("/pass") == NextAsk("/ask pong")
    assert seat.receive_line("/pong 452 451") == Decided(PUNG)
    received = _play(hand, table, 1, PUNG)
    assert received[3] == ["/pong 2 450 451 452"]
    assert seat.request(hand.legal_actions(1)) == "/ask throw"
    assert seat.receive_line("/throw 251") == Decided(DISCARD[Tile.P5])
    received = _play(hand, table, 1, DISCARD[Tile.P5])
    assert received[0] == ["/throw 2 251"]  # the id the bot named, not the lowest


def test_passing_every_claim_ask_is_a_pass_and_a_win_is_a_win() -> None:
    hand, table, _ = _table()
    _play(hand, table, 0, DISCARD[Tile.C])
    seat = table.seats[1]
    seat.request(hand.legal_actions(1), claim_tile=Tile.C)
    assert seat.receive_line("/pass") == NextAsk("/ask pong")
    assert seat.receive_line("/pass") == Decided(PASS)
    seat.request(hand.legal_actions(1), claim_tile=Tile.C)
    assert seat.receive_line("/hu") == Decided(WIN)
    received = _play(hand, table, 1, WIN)
    assert received[2] == [
        "/hu 2 450 110 120 130 140 150 160 170 180 190 210 220 230 250 251 451 452"
    ]


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("/throw 110", RejectReason.NOT_LEGAL),  # does not answer /ask hu
        ("/hu now", RejectReason.MALFORMED),
        ("hello", RejectReason.MALFORMED),
        (b"\xff\xfe", RejectReason.MALFORMED),
    ],
)
def test_bad_replies_end_the_decision_with_a_reason(reply: object, reason: RejectReason) -> None:
    hand, table, _ = _table()
    _play(hand, table, 0, DISCARD[Tile.C])
    seat = table.seats[1]
    seat.request(hand.legal_actions(1), claim_tile=Tile.C)
    with pytest.raises(LineReplyError) as info:
        seat.receive_line(reply)  # type: ignore[arg-type]
    assert info.value.reason is reason
    assert not seat.deciding


def test_a_pong_with_tiles_of_another_kind_is_not_legal() -> None:
    hand, table, _ = _table()
    _play(hand, table, 0, DISCARD[Tile.C])
    seat = table.seats[1]
    seat.request(hand.legal_actions(1), claim_tile=Tile.C)
    seat.receive_line("/pass")
    with pytest.raises(LineReplyError, match="5p is not the discard C"):
        seat.receive_line("/pong 250 251")


def test_a_reply_after_the_deadline_is_late_and_the_probe_is_answered() -> None:
    hand, table, _ = _table()
    seat = table.seats[0]
    seat.request(hand.legal_actions(0))
    seat.cancel()  # the server applied the R17 default
    with pytest.raises(LineReplyError) as info:
        seat.receive_line("/throw 450")
    assert info.value.reason is RejectReason.LATE
    assert seat.probe() == "/ready"
    assert seat.receive_line("/ready") == ReadyReply()
    assert seat.start_line() == "/start MJ 1 p1"


def test_others_see_a_concealed_kong_without_its_tiles() -> None:
    dealer = parse_tiles("1111m 23456789s EEE SW")
    pool = [k for k in Tile for _ in range(4)]
    for t in dealer:
        pool.remove(t)
    hand = HandState.new(build_wall(0, [dealer, pool[:16], pool[16:32], pool[32:48]]), dealer=0)
    table = LineTable()
    for s in range(4):
        table.add_seat(s, f"p{s + 1}")
    for ev in hand.events:
        table.feed(ev)
    seat = table.seats[0]
    assert seat.request(hand.legal_actions(0)) == "/ask gong"
    assert seat.receive_line("/gong 0 110 111 112 113") == Decided(CONCEALED_KONG[Tile.M1])
    received = _play(hand, table, 0, CONCEALED_KONG[Tile.M1])
    assert received[0][0] == "/gong 1 0 110 111 112 113"
    assert received[0][1].startswith("/mo ")
    assert received[1] == received[2] == received[3] == ["/gong 1 0"]
