"""The tournament line protocol (TCGA / TAAI / ICGA referee), sans-I/O.

* :mod:`protocol.line.tile_ids`: the one mapping between tile ids and tile kinds.
* :mod:`protocol.line.codec`: every line parsed into a typed message and formatted back.
* :mod:`protocol.line.asks`: the ``/ask`` lines of one decision, shared by both sides.
* :mod:`protocol.line.client`: :class:`LineClientAdapter` (a bot behind the line protocol).
* :mod:`protocol.line.referee`: :class:`LineServerSeat` / :class:`LineTable` (a referee
  seat whose bot speaks it) and the physical tile ids of a table.

Both sides are exact about legal actions because they run the referee's view code;
:mod:`protocol.line.adapter` re-exports both under their old names.
"""

from protocol.line.codec import LineParseError, parse_program_line, parse_referee_line
from protocol.line.tile_ids import LineError, TileIdError, kind_of, tile_id

__all__ = [
    "LineError",
    "LineParseError",
    "TileIdError",
    "kind_of",
    "parse_program_line",
    "parse_referee_line",
    "tile_id",
]
