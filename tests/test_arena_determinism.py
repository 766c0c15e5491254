"""A seed gives the same results whatever the backend and the worker count, Ray included
(a real local Ray cluster, started once for this module with two CPUs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sdk.arena import ArenaResult, run_arena
from sdk.arena.runner import local_runtime_env
from sdk.records import comparable_lines, read_record

# One bot per seeding mechanism: constructor seed, rng attribute, global random, by spec.
BOTS = [
    "arena_bots:SeededRandom",
    "arena_bots:RngAttribute",
    "arena_bots:GlobalRandom",
    "bots.random",
]
RUN: dict[str, Any] = {"hands": 96, "match_hands": 4, "duplicate": True, "seed": 2024}


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    import ray

    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env()
    )
    yield
    ray.shutdown()


Played = dict[str, list[dict[str, Any]]]


def _run(tmp_path: Path, name: str, **kwargs: Any) -> tuple[ArenaResult, Played]:
    records = tmp_path / name
    result = run_arena(BOTS, save_logs=records, **RUN, **kwargs)
    played = {p.name: comparable_lines(read_record(p)) for p in records.glob("*.jsonl")}
    return result, played


def _same(a: tuple[ArenaResult, Played], b: tuple[ArenaResult, Played]) -> None:
    assert a[0].to_json(timing=False) == b[0].to_json(timing=False)
    assert a[0].deal_points == b[0].deal_points
    assert a[1] == b[1]  # the game records, all but their timing fields


def test_local_and_process_pools_agree(tmp_path: Path) -> None:
    local = _run(tmp_path, "local", backend="local")
    assert local[0].deals == 6 and not local[0].partial
    _same(local, _run(tmp_path, "p1", backend="process", workers=1))
    _same(local, _run(tmp_path, "p2", backend="process", workers=2))
    other = run_arena(BOTS, **{**RUN, "seed": 2025}, backend="local")
    assert other.deal_points != local[0].deal_points  # the seed does matter


def test_ray_agrees_with_local(tmp_path: Path, ray_cluster: None) -> None:
    _same(_run(tmp_path, "local", backend="local"), _run(tmp_path, "ray", backend="ray", workers=2))
