"""The conformance kit's checks and transcripts (sans-I/O).

* :mod:`~protocol.line.conformance.transcript`: scripted referee sessions as text;
* :mod:`~protocol.line.conformance.check`: :class:`ProgramChecker` (a program's replies)
  and :class:`RefereeChecker` (a referee's lines), both against the rules model;
* ``transcripts/``: the shipped transcripts, one per documented behaviour of the public
  referee (written by us from ``tcga-line-protocol.md``).

The kit that runs programs, matches and referees is :mod:`sdk.conformance`
(``python -m protocol.line.conformance`` starts it too, see ``__main__``).
"""

from protocol.line.conformance.check import Fault, ProgramChecker, RefereeChecker
from protocol.line.conformance.transcript import Step, Transcript, parse_transcript

__all__ = ["Fault", "ProgramChecker", "RefereeChecker", "Step", "Transcript", "parse_transcript"]
