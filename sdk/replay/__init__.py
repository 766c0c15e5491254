"""Replays of game records: in the terminal (``python -m sdk.replay RECORD``) and in the
browser (:mod:`sdk.replay.html`, ``--html out.html``).

:func:`load_record` reads a record file or a server URL with one-line errors;
:mod:`sdk.replay.text` renders tables, events, decisions and wins with ``rich``;
:class:`Stepper` is the keyboard navigation.

>>> from sdk.replay import record_url
>>> record_url("http://127.0.0.1:8765/v1/matches/m-7")
'http://127.0.0.1:8765/v1/matches/m-7/log.jsonl'
"""

from sdk.replay.source import ReplayInputError, load_record, record_url
from sdk.replay.stepper import Stepper

__all__ = ["ReplayInputError", "Stepper", "load_record", "record_url"]
