"""``python -m sdk.records --schema [--check] [PATH]``: write (or check) the JSON Schema;
``python -m sdk.records --validate RECORD``: check a record file line by line against it
and replay its decisions through the referee.

Exit status: 0 fine, 1 out of date or a bad record, 2 usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from pydantic import ValidationError

from sdk.records.errors import RecordError
from sdk.records.reader import read_record
from sdk.records.schema import SCHEMA_PATH, schema_text, validate_line
from sdk.records.views import verify_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sdk.records", description=__doc__)
    parser.add_argument("--schema", action="store_true", help="write the JSON Schema")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs")
    parser.add_argument("--validate", type=Path, metavar="RECORD", help="check a record file")
    parser.add_argument("path", nargs="?", type=Path, default=SCHEMA_PATH)
    args = parser.parse_args(argv)
    if args.validate is not None:
        return _validate(args.validate)
    if not args.schema:
        parser.print_help()
        return 2
    text = schema_text()
    if args.check:
        current = args.path.read_text() if args.path.exists() else ""
        if current != text:
            print(
                f"{args.path} is out of date: run python -m sdk.records --schema", file=sys.stderr
            )
            return 1
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(text)
    print(f"wrote {args.path}")
    return 0


def _validate(path: Path) -> int:
    try:
        record = read_record(path)
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                try:
                    validate_line(json.loads(line))
                except ValidationError as exc:
                    first = exc.errors()[0]
                    where = ".".join(str(p) for p in first["loc"])
                    print(f"error: {path} line {number}: {where}: {first['msg']}", file=sys.stderr)
                    return 1
        verify_record(record)
    except OSError as exc:
        print(f"error: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except RecordError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(
        f"{path}: a valid record of {len(record.events)} events, {len(record.decisions)} decisions"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
