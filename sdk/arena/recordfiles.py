"""Writing the arena's game records (``--save-logs DIR``): one file per match sampled.

Workers encode each sampled match's record (:mod:`sdk.records.stream`, the fast path) as
UTF-8 bytes; the parent only writes them, one write per match, as
``DIR/<match id>.jsonl`` (:func:`sdk.arena.deal.record_name`), so the files are the same
for every backend and worker count.

>>> import tempfile
>>> from sdk.arena.deal import DealRecord, MatchRecord
>>> out = RecordFiles(tempfile.mkdtemp())
>>> out.add(DealRecord(0, 9, [MatchRecord((0, 1, 2, 3), (0,) * 4, [], record=b'{"a":1}\\n')]))
>>> [p.name for p in out.paths], out.paths[0].read_text()
(['match-0.jsonl'], '{"a":1}\\n')
"""

from __future__ import annotations

import json
from pathlib import Path

from sdk.arena.deal import DealRecord

__all__ = ["RecordFiles"]


class RecordFiles:
    """Writes the records of the deals it is given into ``directory`` (created)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.paths: list[Path] = []

    def add(self, deal: DealRecord) -> None:
        """Write each recorded match of ``deal`` to its own file."""
        for i, match in enumerate(deal.matches):
            if match.record is not None:
                path = self.directory / f"{_match_id(match.record, deal.deal, i)}.jsonl"
                path.write_bytes(match.record)
                self.paths.append(path)


def _match_id(data: bytes, deal: int, index: int) -> str:
    """The match id in the record's header (or a fallback name from its position)."""
    header = json.loads(data.partition(b"\n")[0])
    match_id = str(header.get("origin", {}).get("match_id", "")) if "origin" in header else ""
    return match_id or f"match-{deal}" + (f"-{index}" if index else "")
