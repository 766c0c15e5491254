"""Sans-I/O checks of the line protocol, both ways, against the rules model.

* :class:`ProgramChecker` watches a program (ours or anyone's) play a referee's lines:
  every reply must be one well-formed line that answers the ask, names tile ids the
  program holds, is legal under the rules (the referee's own
  :func:`~protocol.rules.legal_actions` on a :class:`~protocol.view.SeatView` rebuilt
  from the lines) and comes in time.
* :class:`RefereeChecker` watches a referee's lines as a program receives them: each
  must parse and fit the rules model (a line that does not is a *mirror mismatch*),
  and each ``/ask`` must have a legal answer in the model.

Both collect :class:`Fault` values; nothing here reads or writes anything.

>>> c = ProgramChecker()
>>> for line in ("/start MJ 1 x", "/initGame east east 1 1 0"):
...     c.referee_line(line)
False
False
>>> c.referee_line("/initCard " + " ".join(map(str, range(110, 200, 10))) + " 210 220 230 240 250 260 270 280")
False
>>> c.referee_line("/ask throw")
True
>>> c.reply("/throw 999", 0.01).reason
'malformed'
>>> c.referee_line("/ask throw"), c.reply("/throw 110", 0.01) is None
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from protocol.actions import ADDED_KONG, CONCEALED_KONG, DISCARD, KONG, PASS, PUNG, WIN, Action
from protocol.line.adapter import REPLY_OF_ASK, LineClientAdapter, answerable
from protocol.line.codec import (
    AskKind,
    AskLine,
    EatReply,
    GongKind,
    GongReply,
    HuReply,
    LineParseError,
    PassReply,
    PongReply,
    ReadyLine,
    ThrowReply,
    parse_program_line,
    parse_referee_line,
)
from protocol.line.tile_ids import LineError, kind_of
from protocol.view import CLAIMS
from protocol.wire.common import DECISION_SECONDS

__all__ = ["Fault", "ProgramChecker", "RefereeChecker", "action_of_reply"]


@dataclass(frozen=True, slots=True)
class Fault:
    """One thing wrong: ``reason`` (``malformed``, ``wrong_ask``, ``ids_not_held``,
    ``not_legal``, ``late``, ``unsolicited``, ``unparsable``, ``mismatch``,
    ``no_legal_answer``; and from the kit's runner ``crash``, ``closed``), the offending
    ``line`` and a ``message`` saying what is wrong."""

    reason: str
    line: str
    message: str

    def __str__(self) -> str:
        return f"{self.reason}: {self.message} (line {self.line!r})"


def action_of_reply(msg: object, claim_tile: int | None) -> Action:
    """The referee action a reply names (kinds only; ids are checked separately)."""
    if isinstance(msg, HuReply):
        return WIN
    if isinstance(msg, PassReply):
        return PASS
    if isinstance(msg, ThrowReply):
        return DISCARD[kind_of(msg.tile)]
    if isinstance(msg, EatReply):
        return Action.chow(kind_of(msg.tiles[0]), kind_of(msg.tiles[1]))
    if isinstance(msg, PongReply):
        return PUNG
    assert isinstance(msg, GongReply)
    if msg.kind is GongKind.EXPOSED:
        return KONG
    kind = kind_of(msg.tiles[0])
    return (ADDED_KONG if msg.kind is GongKind.ADDED else CONCEALED_KONG)[kind]


def _reply_ids(msg: object) -> tuple[int, ...]:
    if isinstance(msg, ThrowReply):
        return (msg.tile,)
    return tuple(getattr(msg, "tiles", ()))


class ProgramChecker:
    """Checks a program's replies to a referee's lines (see the module docstring).

    Feed every line the referee sends to :meth:`referee_line` (it says whether a reply
    is due), and each reply with the seconds it took to :meth:`reply`, which returns
    the :class:`Fault` (also kept in :attr:`faults`) or ``None``."""

    def __init__(self, limit: float = DECISION_SECONDS, startup_limit: float = 30.0) -> None:
        self.limit = limit
        self.startup_limit = startup_limit
        """Seconds to answer the ``/ready`` probe (a program may load tables first)."""
        self.shadow = LineClientAdapter()
        """The program's seat as the rules model sees it (its view and tile ids)."""
        self.faults: list[Fault] = []
        self.replies = 0
        self._ask: AskKind | None = None
        self._probe = False

    def referee_line(self, line: str) -> bool:
        """Follow one referee line; whether the program must now reply."""
        msg = parse_referee_line(line)
        if isinstance(msg, AskLine):
            self._ask = msg.kind
            return True
        if isinstance(msg, ReadyLine):
            self._probe = True
            return True
        self.shadow.receive_line(line)
        return False

    def reply(self, line: str | None, seconds: float) -> Fault | None:
        """Check the reply (``None``: none came) to the outstanding ask or probe."""
        ask, probe = self._ask, self._probe
        self._ask, self._probe = None, False
        self.replies += 1
        fault = self._check(ask, probe, line, seconds)
        if fault is not None:
            self.faults.append(fault)
        return fault

    def _check(
        self, ask: AskKind | None, probe: bool, line: str | None, sec: float
    ) -> Fault | None:
        limit = self.startup_limit if probe else self.limit
        if line is None:
            return Fault("late", "", f"no reply within {limit:g} s")
        if sec > limit:
            return Fault("late", line, f"replied after {sec:.2f} s (limit {limit:g} s)")
        try:
            msg = parse_program_line(line)
        except LineParseError as exc:
            return Fault("malformed", line, exc.reason)
        if probe:
            ok = isinstance(msg, ReadyLine)
            return None if ok else Fault("wrong_ask", line, "/ready is answered with /ready")
        if ask is None:
            return Fault("unsolicited", line, "no /ask was waiting for a reply")
        if isinstance(msg, PassReply):
            if ask is AskKind.THROW:
                return Fault("not_legal", line, "/ask throw cannot be passed")
            return None
        if not isinstance(msg, REPLY_OF_ASK[ask]):
            return Fault("wrong_ask", line, f"{line.split()[0]} does not answer /ask {ask}")
        return self._legal(ask, msg, line)

    def _legal(self, ask: AskKind, msg: object, line: str) -> Fault | None:
        view = self.shadow.view
        if view is None:
            return Fault("not_legal", line, "an answer before /start and /initGame")
        held = self.shadow.hand_ids
        missing = [t for t in _reply_ids(msg) if t not in held]
        if missing:
            shown = " ".join(map(str, sorted(held)))
            return Fault("ids_not_held", line, f"tile id {missing[0]} is not in the hand {shown}")
        claim_tile = view.public.pending_tile if view.public.phase == CLAIMS else None
        action = action_of_reply(msg, claim_tile)
        claimed = isinstance(msg, PongReply | GongReply) and action in (PUNG, KONG)
        if claimed and (claim_tile is None or kind_of(_reply_ids(msg)[0]) != claim_tile):
            return Fault("not_legal", line, "the tiles are not of the discard's kind")
        legal = view.legal_actions()
        if action not in legal or not answerable(action, ask):
            shown = ", ".join(map(str, legal)) or "none"
            return Fault("not_legal", line, f"{action} is not legal now (legal: {shown})")
        self.shadow.watch_answer(action)
        return None


class RefereeChecker:
    """Checks the lines a referee sends to one seat (see the module docstring). The
    lines go through :attr:`adapter` (a :class:`LineClientAdapter` a bot can play
    from); :meth:`receive` returns what the adapter returned, or ``[]`` after a fault,
    which is kept in :attr:`faults`."""

    def __init__(self, adapter: LineClientAdapter | None = None) -> None:
        self.adapter = adapter or LineClientAdapter()
        self.faults: list[Fault] = []
        self.lines = 0

    def receive(self, line: str) -> list[object]:
        """Check one line from the referee; the faults it shows."""
        self.lines += 1
        try:
            msg = parse_referee_line(line)
        except LineParseError as exc:
            self.faults.append(Fault("unparsable", line, exc.reason))
            return []
        try:
            items = list(self.adapter.receive_line(line))
        except LineError as exc:
            self.faults.append(Fault("mismatch", line, str(exc)))
            return []
        if isinstance(msg, AskLine):
            self._check_ask(msg.kind, line)
        return items

    def _check_ask(self, ask: AskKind, line: str) -> None:
        view = self.adapter.view
        if view is None:
            return
        legal = view.legal_actions()
        if not any(answerable(a, ask) for a in legal):
            shown = ", ".join(map(str, legal)) or "none"
            message = f"/ask {ask} but nothing answers it in the rules model (legal: {shown})"
            self.faults.append(Fault("no_legal_answer", line, message))
