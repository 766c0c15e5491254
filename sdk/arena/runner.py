"""Backends that play deals: in this process, in a process pool, or on a Ray cluster.

Every backend plays the same deals with :func:`sdk.arena.deal.play_deal` and hands each
finished :class:`~sdk.arena.deal.DealRecord` to ``on_deal`` as it arrives, in whatever
order the workers finish; the report sorts by deal number, so the result of a seed is
identical for every backend and worker count. Work is sent in chunks of whole deals, so
an interrupted run never holds half a duplicate set.

Ctrl-C (SIGINT) stops cleanly (:mod:`sdk.arena.stop`): the pool's workers ignore
SIGINT; the parent stops starting deals (in-process: after the current one), keeps every
deal already finished, terminates the workers (or cancels the Ray tasks) and
:func:`run_deals` returns ``False``. A second Ctrl-C abandons the deal in progress.

Ray: with no address, a local cluster of ``workers`` CPUs is started (and stopped) around
the run, its workers given this process's ``sys.path``; with ``address`` the cluster's
nodes must import the bots themselves (install the package there). If Ray is already
initialised (``ray.init(...)`` with a runtime env of your choice), it is used as is.

>>> from sdk.arena.deal import ArenaPlan, seatings
>>> from sdk.arena.loader import load_bot
>>> from sdk.bot import Bot
>>> first = load_bot(lambda: Bot.from_function(lambda view, request: request.legal_actions[0]))
>>> plan = ArenaPlan((first,) * 4, seed=1, match_hands=1, seatings=tuple(seatings(True)))
>>> got = []
>>> run_deals(plan, [0, 1], backend="local", on_deal=got.append)
True
>>> [(r.deal, len(r.matches)) for r in got]
[(0, 4), (1, 4)]
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from sdk.arena.deal import ArenaPlan, DealRecord, play_deal
from sdk.arena.program_settings import pin_worker, stop_programs_on_sigterm
from sdk.arena.stop import StopOnSigint

__all__ = [
    "BACKENDS",
    "RayMissingError",
    "chunks",
    "local_runtime_env",
    "play_chunk",
    "run_deals",
]

BACKENDS = ("local", "process", "ray")

OnDeal = Callable[[DealRecord], None]


class RayMissingError(ImportError):
    """``--backend ray`` without Ray installed."""


def run_deals(
    plan: ArenaPlan,
    deals: Sequence[int],
    *,
    backend: str = "process",
    workers: int | None = None,
    address: str | None = None,
    on_deal: OnDeal,
) -> bool:
    """Play ``deals`` of ``plan``; return ``True`` if all finished, ``False`` if
    interrupted by Ctrl-C (``on_deal`` has then seen only the finished deals)."""
    workers = workers or os.cpu_count() or 1
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    with StopOnSigint() as stop:
        try:
            if backend == "local":
                return _run_local(plan, deals, on_deal, stop)
            if backend == "process":
                return _run_pool(plan, deals, workers, on_deal, stop)
            return _run_ray(plan, deals, workers, address, on_deal, stop)
        except KeyboardInterrupt:  # a second Ctrl-C: abandon the deals in progress
            return False


def chunks(deals: Sequence[int], workers: int) -> Iterator[list[int]]:
    """Deals in chunks small enough to balance the load (about 8 chunks per worker) and
    large enough to amortise sending them (at most 4 deals).

    >>> list(chunks(range(10), 1))
    [[0], [1], [2], [3], [4], [5], [6], [7], [8], [9]]
    >>> [len(c) for c in chunks(range(100), 2)]
    [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4]
    """
    size = max(1, min(4, len(deals) // (workers * 8)))
    for start in range(0, len(deals), size):
        yield list(deals[start : start + size])


def play_chunk(plan: ArenaPlan, deals: Sequence[int]) -> list[DealRecord]:
    """Play a chunk of deals (what each worker task runs)."""
    return [play_deal(plan, d) for d in deals]


def _run_local(plan: ArenaPlan, deals: Sequence[int], on_deal: OnDeal, stop: StopOnSigint) -> bool:
    for deal in deals:
        if stop.requested:
            return False
        on_deal(play_deal(plan, deal))
    return not stop.requested


# --- process pool -----------------------------------------------------------------------

_worker_plan: ArenaPlan | None = None


def _init_worker(plan: ArenaPlan, counter: Any) -> None:
    """Pool initializer: ignore Ctrl-C (the parent handles it), keep the plan, and give
    a worker whose tables seat multi-core programs its own cores (:func:`pin_worker`)."""
    global _worker_plan
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker_plan = plan
    if plan.has_programs:
        stop_programs_on_sigterm()
        pin_worker(counter, plan.programs.cores)


def _pool_chunk(deals: list[int]) -> list[DealRecord]:
    assert _worker_plan is not None
    return play_chunk(_worker_plan, deals)


def _pool_context() -> Any:
    """``fork`` where available: workers inherit ``sys.path`` and imported bot modules
    and start at once. The parent starts no thread before the pool exists."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _run_pool(
    plan: ArenaPlan, deals: Sequence[int], workers: int, on_deal: OnDeal, stop: StopOnSigint
) -> bool:
    inbox: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
    context = _pool_context()
    counter = context.Value("i", 0)
    pool = context.Pool(workers, initializer=_init_worker, initargs=(plan, counter))

    def submit(chunk: list[int]) -> None:
        pool.apply_async(
            _pool_chunk,
            (chunk,),
            callback=lambda r: inbox.put((True, r)),
            error_callback=lambda e: inbox.put((False, e)),
        )

    complete = False
    try:
        complete = _drain(
            chunks(deals, workers), workers * _IN_FLIGHT, submit, inbox, on_deal, stop
        )
    finally:
        if complete:  # let the workers exit on their own
            pool.close()
        else:  # stopped or failed: do not wait for the chunks in progress
            pool.terminate()
        pool.join()
    while not complete and not inbox.empty():  # keep the chunks that finished meanwhile
        ok, payload = inbox.get()
        for record in payload if ok else ():
            on_deal(record)
    return complete


_IN_FLIGHT = 3
"""Chunks queued per worker: enough to keep workers busy, few enough to stop promptly."""


def _drain(
    work: Iterator[list[int]],
    window: int,
    submit: Callable[[list[int]], None],
    inbox: queue.SimpleQueue[tuple[bool, Any]],
    on_deal: OnDeal,
    stop: StopOnSigint,
) -> bool:
    """Keep ``window`` chunks in flight and hand over their results; ``False`` if a stop
    was requested before all were done."""
    pending = 0
    for chunk in itertools.islice(work, window):
        submit(chunk)
        pending += 1
    while pending:
        if stop.requested:
            return False
        try:
            ok, payload = inbox.get(timeout=0.1)
        except queue.Empty:
            continue
        if not ok:
            raise payload
        pending -= 1
        for chunk in itertools.islice(work, 1):
            submit(chunk)
            pending += 1
        for record in payload:
            on_deal(record)
    return True


# --- Ray ----------------------------------------------------------------------------------


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayMissingError(
            "the ray backend needs Ray: pip install 'ray>=2.9' (in a clone: pip install '.[ray]')"
        ) from None
    return ray


def local_runtime_env() -> dict[str, Any]:
    """A runtime env giving local Ray workers this process's ``sys.path``, so bots that
    import here (the current directory, test folders) import there too."""
    paths = [p for p in sys.path if p and os.path.isdir(p)]
    return {"env_vars": {"PYTHONPATH": os.pathsep.join(paths)}}


def _run_ray(
    plan: ArenaPlan,
    deals: Sequence[int],
    workers: int,
    address: str | None,
    on_deal: OnDeal,
    stop: StopOnSigint,
) -> bool:
    ray = _import_ray()
    started = not ray.is_initialized()
    if started:
        _start_ray(ray, workers, address)
    try:
        remote = ray.remote(play_chunk)
        plan_ref = ray.put(plan)
        work = chunks(deals, workers)
        pending = [remote.remote(plan_ref, c) for c in itertools.islice(work, workers * _IN_FLIGHT)]
        while pending and not stop.requested:
            done, pending = ray.wait(pending, num_returns=1, timeout=0.1)
            for ref in done:
                pending += [remote.remote(plan_ref, c) for c in itertools.islice(work, 1)]
                for record in ray.get(ref):
                    on_deal(record)
        for ref in pending:
            ray.cancel(ref, force=True)
        return not pending
    finally:
        if started:
            ray.shutdown()


def _start_ray(ray: Any, workers: int, address: str | None) -> None:
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            runtime_env=local_runtime_env(),
        )
