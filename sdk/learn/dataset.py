"""Datasets from game records: one sample per recorded decision, for imitation learning.

``python -m sdk.learn.dataset RECORDS... -o data.npz`` reads game records (files, or
folders searched for ``*.jsonl``; any source: the arena, ``--local``, the server; see
``docs/RECORDS.md``) and writes a NumPy ``.npz`` with one row per decision:

=================  ==========================  =================================================
array              shape, dtype                what
=================  ==========================  =================================================
``observation``    (N, 1104) float32           :func:`sdk.learn.encoding.encode` of the deciding seat's view
``mask``           (N, 151) int8               its legal actions (:mod:`sdk.learn.action_space`)
``action``         (N,) int16                  the action applied
``outcome``        (N,) int32                  the seat's points in that hand (0 if it did not end)
``fallback``       (N,) bool                   the seat's own answer was replaced (late, error...)
``seat``           (N,) int8                   the deciding seat
``hand``           (N,) int16                  the hand number in the match
``record``         (N,) int32                  which input record (in the order read)
=================  ==========================  =================================================

The view of the deciding seat is rebuilt from the record's events exactly as its
mirror kept it during play, so an observation from a record equals the one the bot
computed live (a test checks it). Records are read one at a time and rows are streamed
to disk, so memory stays constant whatever the input size. A record that cannot be read
is reported with its file and line and stops the run, or with ``--skip-bad`` is skipped.
``--bot NAME`` keeps only the decisions of seats played by that bot (as the header
names it), for example to imitate one bot from arena logs.
"""

from __future__ import annotations

import os
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np

from protocol.cli import EXIT_OK, EXIT_USAGE, CommandError, Parser, run_command
from protocol.events import project
from protocol.view import SeatView
from sdk.learn.action_space import N_ACTIONS, index_of, legal_mask
from sdk.learn.encoder import Encoder
from sdk.learn.encoding import OBS_SIZE
from sdk.records import Record, RecordError, read_record
from sdk.view import GameView

__all__ = ["COLUMNS", "DatasetReport", "build_dataset", "main", "record_samples"]

COLUMNS: dict[str, tuple[np.dtype, tuple[int, ...]]] = {
    "observation": (np.dtype(np.float32), (OBS_SIZE,)),
    "mask": (np.dtype(np.int8), (N_ACTIONS,)),
    "action": (np.dtype(np.int16), ()),
    "outcome": (np.dtype(np.int32), ()),
    "fallback": (np.dtype(np.bool_), ()),
    "seat": (np.dtype(np.int8), ()),
    "hand": (np.dtype(np.int16), ()),
    "record": (np.dtype(np.int32), ()),
}
"""Each array of the dataset: dtype and the shape of one row."""


@dataclass(slots=True)
class Sample:
    """One decision of a record, encoded."""

    observation: np.ndarray
    mask: np.ndarray
    action: int
    outcome: int
    fallback: bool
    seat: int
    hand: int


def record_samples(record: Record, bots: Iterable[str] | None = None) -> Iterator[Sample]:
    """The samples of ``record``, in order: each decision with the view its seat had
    when it was asked (only seats played by ``bots``, by header name, if given)."""
    wanted = None if bots is None else set(bots)
    seats = {s for s in range(4) if wanted is None or record.header.name_at(s) in wanted}
    points = {hand.hand: hand.result.payments for hand in record.hands}
    views = [SeatView(seat) for seat in range(4)]
    encoder = Encoder()  # the same numbers as encode(), updated from decision to decision
    events, applied = record.events, 0
    for decision in record.decisions:
        while applied < decision.after_event:
            event = events[applied]
            for view in views:
                seen = project(event, view.seat)
                if seen is not None:
                    view.apply(seen)
            applied += 1
        if decision.seat not in seats:
            continue
        paid = points.get(decision.hand)
        yield Sample(
            observation=encoder.encode(GameView(views[decision.seat])),
            mask=legal_mask(decision.legal),
            action=index_of(decision.applied),
            outcome=0 if paid is None else paid[decision.seat],
            fallback=decision.fallback,
            seat=decision.seat,
            hand=decision.hand,
        )


@dataclass(slots=True)
class DatasetReport:
    """What :func:`build_dataset` did."""

    samples: int = 0
    records: int = 0
    skipped: list[str] = field(default_factory=list)
    """One line per record skipped: file, line and what is wrong."""


def build_dataset(
    paths: Sequence[str | Path],
    out: str | Path,
    *,
    skip_bad: bool = False,
    bots: Iterable[str] | None = None,
    progress: bool = False,
) -> DatasetReport:
    """Encode every decision of the records at ``paths`` (files or folders) into the
    ``.npz`` file ``out``. A record that cannot be read raises its
    :class:`~sdk.records.RecordError` (nothing is written), or with ``skip_bad`` is
    listed in the report and skipped."""
    files = list(record_files(paths))
    report = DatasetReport()
    bots = None if bots is None else list(bots)
    out = Path(out)
    with tempfile.TemporaryDirectory(dir=out.parent if out.parent.exists() else None) as tmp:
        columns = _Columns(Path(tmp))
        with _progress(len(files), progress) as advance:
            for path in files:
                try:
                    record = read_record(path)
                except RecordError as exc:
                    if not skip_bad:
                        raise
                    report.skipped.append(str(exc))
                    advance()
                    continue
                for sample in record_samples(record, bots):
                    columns.add(sample, report.records)
                    report.samples += 1
                report.records += 1
                advance()
        columns.write_npz(out, report.samples)
    return report


def record_files(paths: Sequence[str | Path]) -> Iterator[Path]:
    """The record files named by ``paths``: files as given, folders searched (sorted)
    for ``*.jsonl``. Raises :class:`FileNotFoundError` for a path that does not exist."""
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(p.rglob("*.jsonl"))
        elif p.exists():
            yield p
        else:
            raise FileNotFoundError(f"{p}: no such file or folder")


class _Columns:
    """One raw file per array, appended to row by row (constant memory)."""

    def __init__(self, folder: Path) -> None:
        self.paths = {name: folder / f"{name}.raw" for name in COLUMNS}
        self.files: dict[str, IO[bytes]] = {n: p.open("wb") for n, p in self.paths.items()}

    def add(self, sample: Sample, record: int) -> None:
        f = self.files
        f["observation"].write(sample.observation.astype(np.float32, copy=False).tobytes())
        f["mask"].write(sample.mask.tobytes())
        for name, value in (
            ("action", sample.action),
            ("outcome", sample.outcome),
            ("fallback", sample.fallback),
            ("seat", sample.seat),
            ("hand", sample.hand),
            ("record", record),
        ):
            f[name].write(np.asarray(value, COLUMNS[name][0]).tobytes())

    def write_npz(self, out: Path, rows: int) -> None:
        """Close the raw files and stream them into ``out`` (written whole, then moved
        into place, so a failed run leaves no half file)."""
        for f in self.files.values():
            f.close()
        partial = out.with_name(out.name + ".partial")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, (dtype, shape) in COLUMNS.items():
                header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False}
                header["shape"] = (rows, *shape)
                with zf.open(f"{name}.npy", "w", force_zip64=True) as entry:
                    np.lib.format.write_array_header_2_0(entry, header)
                    with self.paths[name].open("rb") as raw:
                        while chunk := raw.read(1 << 20):
                            entry.write(chunk)
        os.replace(partial, out)


class _progress:
    """A progress bar over the files on stderr (a no-op when disabled)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled
        self.bar = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        if not self.enabled:
            return lambda: None
        from rich.progress import Progress

        self.bar = Progress(transient=True, console=_stderr_console())
        self.bar.start()
        task = self.bar.add_task("records", total=self.total)
        return lambda: self.bar.advance(task)  # type: ignore[union-attr]

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _stderr_console():  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m sdk.learn.dataset``); returns the exit code: 0
    done, 1 a record or file that cannot be read or written, 2 a usage error such as a
    record path that does not exist (one line on stderr each time, never a traceback:
    :mod:`protocol.cli`)."""
    return run_command(_main, argv)


def _main(argv: list[str] | None) -> int:
    parser = Parser(
        prog="python -m sdk.learn.dataset",
        description="Turn game records into (observation, mask, action, outcome) arrays.",
    )
    parser.add_argument("records", nargs="+", help="record files or folders of *.jsonl")
    parser.add_argument("-o", "--out", required=True, help="the .npz file to write")
    parser.add_argument("--skip-bad", action="store_true", help="skip unreadable records")
    parser.add_argument("--bot", action="append", help="keep only seats played by this bot")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    _check_inputs(args.records)
    try:
        report = build_dataset(
            args.records,
            args.out,
            skip_bad=args.skip_bad,
            bots=args.bot,
            progress=not args.quiet and sys.stderr.isatty(),
        )
    except RecordError as exc:
        raise CommandError(f"{exc} (pass --skip-bad to skip such records)") from exc
    except OSError as exc:
        raise CommandError(str(exc)) from exc
    for line in report.skipped:
        print(f"skipped: {line}", file=sys.stderr)
    print(
        f"wrote {report.samples} samples from {report.records} records to {args.out}"
        + (f" ({len(report.skipped)} skipped)" if report.skipped else "")
    )
    return EXIT_OK


def _check_inputs(paths: Sequence[str]) -> None:
    """A record path that does not exist is a usage error (exit 2, as docs/RECORDS.md
    says), told before any work; a record that exists but cannot be read stays a failure
    (exit 1)."""
    for path in paths:
        if not Path(path).exists():
            raise CommandError(f"{path}: no such file or folder", EXIT_USAGE)


if __name__ == "__main__":
    sys.exit(main())
