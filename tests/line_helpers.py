"""Helpers for line-protocol tests (importable as ``line_helpers`` from the tests folder)."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.tiles import Tile


def numbered_in_place_order(wall: Sequence[int]) -> list[int]:
    """A physical wall for a scripted one: the copies of each kind numbered along the
    wall (the first 1m is copy 0, the next copy 1, ...), so that a test can read the
    expected tile ids off the deal.

    >>> numbered_in_place_order([0, 5, 0])
    [0, 20, 1]
    """
    seen = [0] * len(Tile)
    physical = []
    for kind in wall:
        physical.append(kind * 4 + seen[kind])
        seen[kind] += 1
    return physical
