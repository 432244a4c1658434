"""Where the units of a long run execute: in this process, or on a Dask cluster.

:func:`open_engine` gives an :class:`Engine` whose :meth:`~Engine.run` yields every unit's
outcome as it finishes, in whatever order the units finish:

- no flags: **serial**, in this process, one unit after another: the numba kernels use every
  core, BLAS and torch one thread (each study's ``run_unit`` sees to that itself,
  :func:`cotbook._threads.one_thread_unit`, so its bytes do not depend on who calls it);
- ``workers=N``: a local Dask cluster of ``N`` worker processes, one thread each;
- ``scheduler=ADDRESS``: a running Dask scheduler (``dask scheduler`` and ``dask worker``, or
  dask-jobqueue on SLURM/PBS); the connection is made, or refused naming the address, within
  :data:`CONNECT_TIMEOUT_S` seconds, before any work.

On a cluster every unit computes on one thread: the worker processes start with the thread
variables of numba, OpenMP (torch) and BLAS set to 1 (:data:`ONE_THREAD`; on a running
cluster through its nannies, which restart their workers once).  The numba kernels give
the same bits on any number of threads (tested), so a serial run lets them use every core;
BLAS and torch reductions over large arrays do not, so every unit keeps those on one thread
(numba's OpenMP layer sets the OpenMP thread count that torch reads, so each kernel puts
torch's count back after it runs, in ``cotbook.attention._kernels``).

A unit is tried at most twice (:data:`TRIES`): a unit that raises is retried once (Dask's
``retries``); a unit whose worker process dies is rescheduled once (the scheduler's
``allowed-failures``, set for a local cluster; a running scheduler keeps its own).  A unit that
fails twice is reported with its error, never dropped.  Every outcome carries the source hash
of the code that computed it, so a worker running other code is caught
(:func:`run_study <cotbook.book.runs.runner.run_study>` refuses its results).

A cluster that has no running worker for :data:`NO_WORKERS_S` seconds while units wait (a
scheduler started without ``dask worker``, every worker gone, or every worker paused, e.g. over
its memory limit) is said so on standard error, with the
count of units done; then the run either keeps waiting and repeats the message every
:data:`NO_WORKERS_REPEAT_S` seconds (``no_workers="wait"``, the default) or stops with
:class:`NoWorkers`, the finished units kept for ``--resume`` (``no_workers="stop"``).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass

import dask
from distributed import Client, LocalCluster, wait
from distributed.diagnostics.plugin import Environ

from ... import _checks
from .. import records

__all__ = [
    "CONNECT_TIMEOUT_S",
    "NO_WORKERS_S",
    "NO_WORKERS_REPEAT_S",
    "NO_WORKERS_CHOICES",
    "NoWorkers",
    "TRIES",
    "ONE_THREAD",
    "Outcome",
    "Engine",
    "serial",
    "open_engine",
    "environ_kept",
]

CONNECT_TIMEOUT_S = 10
TRIES = 2
#: seconds without a worker, while units wait, before the run says so
NO_WORKERS_S = 20
#: seconds between the messages of a run that waits for a worker
NO_WORKERS_REPEAT_S = 60
#: how often a cluster run looks at its workers while nothing finishes
_POLL_S = 2
NO_WORKERS_CHOICES = ("wait", "stop")
# set before a worker process starts: numba reads its thread count when imported, and
# importing cotbook imports numba
ONE_THREAD = {
    var: "1"
    for var in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
}


@dataclass(frozen=True)
class Outcome:
    """One unit's end: its ``result`` (``None`` when it failed), the ``error`` of its last try
    (``None`` when it succeeded) and the ``source_hash`` of the code that ran it."""

    unit: str
    result: dict | None
    error: str | None
    source_hash: str | None


class NoWorkers(RuntimeError):
    """A cluster run stopped because its scheduler had no worker (``no_workers="stop"``)."""


@functools.cache
def _source_hash(producers) -> str:
    return records.source_hash(producers)


def _task(run_unit, spec, unit, producers) -> Outcome:
    """A unit as a cluster runs it, with the hash of the code that ran it."""
    return Outcome(unit, run_unit(spec, unit), None, _source_hash(producers))


def _error(exc) -> str:
    return "".join(traceback.format_exception_only(exc)).strip()


class Engine:
    """Runs units of a study; made by :func:`open_engine`, used as a context manager."""

    def __init__(self, description, client=None, no_workers="wait"):
        if no_workers not in NO_WORKERS_CHOICES:
            raise ValueError(f"no_workers must be one of {NO_WORKERS_CHOICES}, got {no_workers!r}")
        self.description = description
        self._client = client
        self._no_workers = no_workers

    def run(self, run_unit, spec, units, producers):
        """Yield an :class:`Outcome` per unit of ``units`` as it finishes (``run_unit(spec,
        unit)``, each tried at most :data:`TRIES` times)."""
        if self._client is None:
            yield from self._serial(run_unit, spec, units, producers)
        else:
            yield from self._cluster(run_unit, spec, units, producers)

    @staticmethod
    def _serial(run_unit, spec, units, producers):
        for unit in units:
            for _ in range(TRIES):
                try:
                    result = run_unit(spec, unit)
                except Exception as exc:  # noqa: BLE001 - a failed unit is reported, not fatal
                    error = _error(exc)
                    continue
                yield Outcome(unit, result, None, _source_hash(producers))
                break
            else:
                yield Outcome(unit, None, error, None)

    def _cluster(self, run_unit, spec, units, producers):
        run = uuid.uuid4().hex[:8]
        futures = {
            self._client.submit(
                _task,
                run_unit,
                spec,
                unit,
                producers,
                key=f"cotbook-{run}-{unit}",
                retries=TRIES - 1,
                pure=False,
            ): unit
            for unit in units
        }
        total, idle_since, said = len(futures), None, None
        while futures:
            try:
                finished = wait(list(futures), timeout=_POLL_S, return_when="FIRST_COMPLETED")
            except TimeoutError:
                finished = None
            if finished is None or not finished.done:
                idle_since, said = self._idle(idle_since, said, total - len(futures), total)
                continue
            idle_since = said = None
            for future in finished.done:
                unit = futures.pop(future)
                if future.status == "finished":
                    yield future.result()
                elif future.status == "error":
                    yield Outcome(unit, None, _error(future.exception()), None)
                else:  # cancelled: the scheduler is gone
                    raise RuntimeError(f"unit {unit} was {future.status}: the cluster was lost")
                future.release()

    def _idle(self, idle_since, said, done, total):
        """Nothing finished in the last poll: look at the workers.  Returns the time since
        which the cluster has had no running one (``None`` while it has) and when the run last
        said so; says so after :data:`NO_WORKERS_S` seconds, or stops (:class:`NoWorkers`)."""
        workers = self._client.scheduler_info(n_workers=-1)["workers"]  # all, not the first 5
        statuses = [w.get("status") for w in workers.values()]
        if "running" in statuses:
            return None, None
        now = time.monotonic()
        idle_since = now if idle_since is None else idle_since
        waited = now - idle_since
        if waited < NO_WORKERS_S or (said is not None and now - said < NO_WORKERS_REPEAT_S):
            return idle_since, said
        others = len(statuses)
        where = f"{self.description} has had no running worker for {waited:.0f} s" + (
            f" ({others} paused or closing: over their memory limit?)" if others else ""
        )
        count = f"{done} of {total} units of this run finished"
        if self._no_workers == "stop":
            raise NoWorkers(f"{where} ({count}); start workers and go on with --resume")
        print(
            f"{where}: {count}; waiting (start one with `dask worker ADDRESS`, or stop with "
            "Ctrl-C and go on later with --resume)",
            file=sys.stderr,
            flush=True,
        )
        return idle_since, now

    def close(self) -> None:
        if self._client is not None:
            cluster = self._client.cluster
            self._client.close()
            if cluster is not None:
                cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def serial() -> Engine:
    """The serial engine: units run in this process, one after another."""
    return Engine("serial, in this process")


def _worker_environ():
    """The variables a local cluster's nannies set before they spawn a worker process: Dask's
    own (less ``MALLOC_TRIM_THRESHOLD_``) and :data:`ONE_THREAD` but numba's.  Dask's default
    ``MALLOC_TRIM_THRESHOLD_`` makes glibc hand freed memory back at once, and a training step
    re-faults it (one grid unit measured 20.6 s without it, 27.6 s with it, on one thread)."""
    environ = dask.config.get("distributed.nanny.pre-spawn-environ")
    return {
        **{k: str(v) for k, v in environ.items() if k != "MALLOC_TRIM_THRESHOLD_"},
        **{k: v for k, v in ONE_THREAD.items() if k != "NUMBA_NUM_THREADS"},
    }


@contextlib.contextmanager
def environ_kept(names):
    """This process's values of the variables ``names`` put back on exit.  A local cluster's
    nannies live in this process and write their pre-spawn variables into its ``os.environ``
    (Dask documents the leak); left there, chapter kernels started here later would run on one
    thread."""
    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _local_client(workers, environ):
    """A client of a new local cluster.  :data:`ONE_THREAD` is set in each worker process
    before its worker starts (the nannies' ``env``, which overrides this process's values).
    ``NUMBA_NUM_THREADS`` is set there only, not by the nanny before the spawn (``environ``,
    pre-spawn): written into this process while numba's threads run here, it made the next
    numba compilation here raise ("Cannot set NUMBA_NUM_THREADS to a different value once the
    threads have been launched").  Nothing a worker process imports before that imports numba
    (its thread count is tested)."""
    # read when the scheduler and the nannies start: a unit whose worker dies is rescheduled
    # once, then reported (KilledWorker)
    settings = {
        "distributed.scheduler.allowed-failures": TRIES - 1,
        "distributed.nanny.pre-spawn-environ": environ,
    }
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            # any free port (no clash with another cluster), on this machine only
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
            env=ONE_THREAD,
        )
    return Client(cluster)


def _scheduler_answers(address):
    """The identity of the Dask scheduler at ``address`` (a dict), asked over one raw comm
    in this thread's own event loop and abandoned after :data:`CONNECT_TIMEOUT_S` seconds;
    raises on any failure.  No :class:`~distributed.Client` is built here: a half-built one
    that raised is left to the garbage collector, whose ``Client.__del__`` then takes
    distributed's class-wide loop lock, and when the collection fell inside another cluster's
    loop start-up (which holds that lock) it hung the process or timed out the start-up."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=CONNECT_TIMEOUT_S)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return asyncio.run(asyncio.wait_for(ask(), CONNECT_TIMEOUT_S))


def _remote_client(address):
    """A client of the scheduler at ``address``, connected within :data:`CONNECT_TIMEOUT_S`
    seconds of wall-clock time, or ``ValueError`` naming the address.  Dask's own timeout
    covers the TCP connection only: a listener that accepts and never answers held the
    handshake for minutes, and a server of another protocol could make it read a garbage frame
    length.  So the scheduler is first asked who it is (:func:`_scheduler_answers`) in a
    daemon thread under a hard deadline, any error it meets is reported as unreachable, and
    the client is built only once a scheduler has answered."""
    found = {}

    def ask():
        try:
            found["identity"] = _scheduler_answers(address)
        except BaseException as err:  # noqa: BLE001 - reported below, naming the address
            found["error"] = f"{type(err).__name__}: {err}"

    thread = threading.Thread(target=ask, name="cotbook-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT_S)
    identity = found.get("identity")
    if not (isinstance(identity, dict) and identity.get("type") == "Scheduler"):
        why = found.get("error", "no answer" if identity is None else "not a Dask scheduler")
        raise ValueError(
            f"scheduler {address!r} cannot be reached within {CONNECT_TIMEOUT_S} s ({why}); "
            "start one (`dask scheduler`) or give its address, e.g. tcp://host:8786"
        )
    client = Client(address, timeout=CONNECT_TIMEOUT_S)
    client.register_plugin(Environ(ONE_THREAD))  # restarts the workers (of nannies) with it
    return client


@contextlib.contextmanager
def open_engine(workers=None, scheduler=None, no_workers="wait"):
    """The :class:`Engine` of a run: serial (neither argument), a local cluster of ``workers``
    processes (an integer >= 1) or the running scheduler at ``scheduler``; closed on exit.
    ``no_workers`` (one of :data:`NO_WORKERS_CHOICES`) is what a cluster run does when it has
    no worker for :data:`NO_WORKERS_S` seconds.

    Raises ``ValueError`` for ``workers < 1``, for both arguments at once, for an unknown
    ``no_workers`` and for a scheduler that cannot be reached (naming its address)."""
    if workers is not None and scheduler is not None:
        raise ValueError("give workers or scheduler, not both")
    if no_workers not in NO_WORKERS_CHOICES:
        raise ValueError(f"no_workers must be one of {NO_WORKERS_CHOICES}, got {no_workers!r}")
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            client = _remote_client(scheduler)
            engine = Engine(f"Dask scheduler {scheduler}", client, no_workers)
        elif workers is not None:
            workers = _checks.positive_int("workers", workers)
            environ = _worker_environ()
            stack.enter_context(environ_kept(environ))  # entered first, so left last
            engine = Engine(
                f"local Dask cluster, {workers} worker process(es) x 1 thread",
                _local_client(workers, environ),
                no_workers,
            )
        else:
            engine = serial()
        try:
            yield engine
        finally:
            engine.close()
