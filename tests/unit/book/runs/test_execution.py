"""The execution engine of long runs (cotbook.book.runs.execution, cotbook.book.runs.runner):
serial, a local Dask cluster of two worker processes, and a run killed and resumed give
byte-identical data; a worker that dies has its unit retried; a unit that fails twice is named,
the rest kept.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import cloudpickle
import pytest

from cotbook import cli
from cotbook.attention import grid, instability, softmax_study
from cotbook.book import records
from cotbook.book.records import checkpoint, provenance
from cotbook.book.runs import execution, runner, scaling
from cotbook.simulation import finite_size
from cotbook.theory import numerics
from cotbook.theory.ridge import coverage as ridge_coverage

ROOT = Path(__file__).resolve().parents[4]
TINY = grid.GRID_SCALES["tiny"]
# the test's own unit functions travel to the worker processes by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _data(directory, name="attention_grid") -> str:
    return json.dumps(records.load(name, directory=directory).data)


@pytest.fixture(scope="module")
def cluster():
    with execution.open_engine(workers=2) as engine:
        yield engine


@pytest.fixture(scope="module")
def serial_grid(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    assert cli.main(["experiments", "--scale", "tiny", "--only", "grid", "--out", str(out)]) == 0
    return out


def _run(engine, out, run_unit=grid.run_unit, **kw):
    return runner.run_study(
        "attention_grid",
        "tiny",
        TINY,
        run_unit,
        grid.assemble,
        out=out,
        progress=False,
        engine=engine,
        **kw,
    )


def _numba_threads():
    import numba  # alone: a worker that imports torch as well starts seconds later

    return numba.config.NUMBA_NUM_THREADS


def _threads():
    import numba
    import torch

    return numba.config.NUMBA_NUM_THREADS, torch.get_num_threads(), "MALLOC_TRIM_THRESHOLD_" in os.environ


@pytest.mark.slow
def test_two_workers_give_the_serial_data_byte_for_byte(cluster, serial_grid, tmp_path):
    path = _run(cluster, tmp_path)
    assert list(cluster._client.run(_threads).values()) == [(1, 1, False)] * 2  # one thread each
    record = records.load("attention_grid", directory=tmp_path)
    assert _data(tmp_path) == _data(serial_grid)
    assert record.environment["engine"] == cluster.description
    assert "2 worker process(es) x 1 thread" in cluster.description
    assert not (tmp_path / "attention_grid.partial").exists() and path.is_file()


# every long run but the grid (tested above), at its tiny scale
STUDIES = {
    "attention_sensitivity": (grid.SENSITIVITY_SCALES["tiny"], grid),
    "attention_instability": (instability.SCALES["tiny"], instability),
    "attention_softmax": (softmax_study.SCALES["tiny"], softmax_study),
    "theory_vs_simulation": (finite_size.SCALES["tiny"], finite_size),
    "theory_accuracy": (numerics.SCALES["tiny"], numerics),
    "ridge_coverage": (ridge_coverage.SCALES["tiny"], ridge_coverage),
}


@pytest.mark.parametrize("name", list(STUDIES))
@pytest.mark.slow
def test_every_long_run_gives_the_same_bytes_on_two_workers(name, cluster, tmp_path):
    spec, module = STUDIES[name]
    for engine, out in ((execution.serial(), tmp_path / "a"), (cluster, tmp_path / "b")):
        runner.run_study(
            name, "tiny", spec, module.run_unit, module.assemble, out=out, progress=False,
            engine=engine,
        )  # fmt: skip
    assert _data(tmp_path / "a", name) == _data(tmp_path / "b", name)


def _dies_once(marker):
    """A unit function whose worker process dies (SIGKILL) the first time it runs the unit
    ``linear/L=20/trial=1``; every try is counted in ``marker``."""

    def run_unit(spec, unit):
        if unit == "linear/L=20/trial=1":
            tries = marker.read_text() if marker.exists() else ""
            marker.write_text(tries + "x")
            if not tries:
                os.kill(os.getpid(), signal.SIGKILL)
        return grid.run_unit(spec, unit)

    return run_unit


@pytest.mark.slow
def test_a_killed_workers_unit_is_retried(cluster, serial_grid, tmp_path):
    marker = tmp_path / "tries"
    _run(cluster, tmp_path, run_unit=_dies_once(marker))
    assert marker.read_text() == "xx"  # killed once, run again on a new worker
    assert _data(tmp_path) == _data(serial_grid)


def _fails(spec, unit):
    if unit == "softmax/L=5/trial=0":
        raise RuntimeError("no memory left")
    return grid.run_unit(spec, unit)


@pytest.mark.parametrize("distributed", [False, True], ids=["serial", "cluster"])
@pytest.mark.slow
def test_a_unit_failing_twice_is_named_and_the_rest_kept(
    distributed, cluster, serial_grid, tmp_path
):
    engine = cluster if distributed else execution.serial()
    with pytest.raises(runner.RunFailed) as err:
        _run(engine, tmp_path, run_unit=_fails)
    message = str(err.value)
    assert "1 of 8 units failed 2 times" in message
    assert "softmax/L=5/trial=0: RuntimeError: no memory left" in message and "--resume" in message
    saved = list((tmp_path / "attention_grid.partial").glob("unit-*.json"))
    assert len(saved) == 7 and not (tmp_path / "attention_grid.json").exists()
    _run(engine, tmp_path, resume=True)  # the cause fixed: only the failed unit runs
    assert _data(tmp_path) == _data(serial_grid)


@pytest.mark.slow
def test_units_computed_by_other_code_are_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(execution, "_source_hash", lambda producers: "0123456789abcdef")
    with pytest.raises(runner.RunFailed, match="computed by other code"):
        _run(execution.serial(), tmp_path)


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_bytes(serial_grid, tmp_path):
    """The command line on a cluster (one worker: a second one would only add its start-up),
    killed (client, scheduler and worker) once some units are saved, then finished with
    --resume, serially: the checkpoint is the runner's, not the engine's (a resume on the
    cluster is tested above, after a unit failed twice), and a second cluster would double this
    test's time."""
    command = [sys.executable, "-m", "cotbook", "experiments", "--scale", "tiny", "--only",
               "grid", "--workers", "1", "--out", str(tmp_path)]  # fmt: skip
    run = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    partial = tmp_path / "attention_grid.partial"
    deadline = time.monotonic() + 120
    while not list(partial.glob("unit-*.json")) and run.poll() is None:
        assert time.monotonic() < deadline, "no unit finished within 2 minutes"
        time.sleep(0.01)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    saved = len(list(partial.glob("unit-*.json")))
    assert 1 <= saved < len(TINY.units()) and not (tmp_path / "attention_grid.json").exists()
    serially = [*command[3 : command.index("--workers")], "--out", str(tmp_path), "--resume"]
    assert cli.main(serially) == 0  # in this process: the kernels are loaded here already
    assert _data(tmp_path) == _data(serial_grid)


def test_the_cluster_recipe_is_the_one_run_below():
    """The chapter's recipe, its continued lines joined as the shell joins them, starts what the
    next test starts: a scheduler that reschedules a lost unit once, one-thread workers, and the
    command line pointed at the scheduler."""
    text = (ROOT / "book" / "long_runs.md").read_text()
    recipe = text.split("**On a cluster**", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines = recipe.replace("\\\n", "").splitlines()
    commands = [" ".join(line.split()) for line in lines if line.strip() and line[0] != "#"]
    assert commands == [
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=1 .venv/bin/dask scheduler --port 8786",
        ".venv/bin/dask worker tcp://SCHEDULER_HOST:8786 --nworkers 32 --nthreads 1",
        ".venv/bin/python -m cotbook experiments --scale paper"
        " --scheduler tcp://SCHEDULER_HOST:8786",
    ]


@pytest.mark.slow
def test_a_running_cluster_gives_the_serial_data(serial_grid, tmp_path):
    """The cluster recipe of the chapter *Long runs* (book/long_runs.md) on this machine:
    `dask scheduler`, `dask worker --nthreads 1`, and the command line pointed at the
    scheduler.  One worker process: two workers' bytes are tested on the local cluster above,
    and a second one here would only import torch once more."""
    dask = Path(sys.executable).with_name("dask")
    info = tmp_path / "scheduler.json"
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1")
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=env)
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file", info], **quiet
    )
    workers = None
    try:
        deadline = time.monotonic() + 60
        while not info.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.05)
        address = json.loads(info.read_text())["address"]
        workers = subprocess.Popen(
            [dask, "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard"],
            **quiet,
        )
        out = tmp_path / "out"
        args = ["experiments", "--scale", "tiny", "--only", "grid", "--out", str(out)]
        assert cli.main([*args, "--scheduler", address]) == 0
        assert _data(out) == _data(serial_grid)
        assert records.load("attention_grid", out).environment["engine"].endswith(address)
    finally:
        for process in (workers, scheduler):
            if process is not None:
                process.terminate()
                process.wait(30)


@pytest.mark.slow
def test_bad_engine_requests_fail_before_any_work(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 1)
    address = "tcp://127.0.0.1:9"  # nothing listens on the discard port
    start = time.monotonic()
    args = ["experiments", "--scale", "tiny", "--only", "grid", "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as err:
        cli.main([*args, "--scheduler", address])
    assert err.value.code == 2 and time.monotonic() - start < 30
    assert f"scheduler {address!r} cannot be reached" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()  # no work, no folder
    for bad in ("0", "-2", "two"):
        with pytest.raises(SystemExit) as err:
            cli.main([*args, "--workers", bad])
        assert err.value.code == 2 and "must be an integer >= 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main([*args, "--workers", "2", "--scheduler", address])
    with pytest.raises(ValueError, match="workers must be"):
        with execution.open_engine(workers=0):
            pass


def test_makespan_schedules_units_on_the_first_free_worker():
    assert scaling.makespan([3, 1, 1, 1], 1) == 6
    assert scaling.makespan([3, 1, 1, 1], 2) == 3
    assert scaling.makespan([1, 1, 1, 3], 2) == 4  # the long unit submitted last
    assert scaling.makespan_bound([1, 1, 1, 3], 2) == 3
    assert scaling.makespan([2, 2, 2], 512) == 2
    costs = [5.0, 1.0, 4.0, 2.0, 2.0, 3.0]
    for workers in (1, 2, 3, 7):
        assert scaling.makespan(costs, workers) >= scaling.makespan_bound(costs, workers)
    with pytest.raises(ValueError, match="workers must be"):
        scaling.makespan(costs, 0)
    with pytest.raises(ValueError, match="costs must be"):
        scaling.makespan([], 2)


def _library_threads():
    import numba
    import threadpoolctl
    import torch

    blas = {d["num_threads"] for d in threadpoolctl.threadpool_info() if d["user_api"] == "blas"}
    return blas, torch.get_num_threads(), numba.get_num_threads()


def test_a_unit_runs_blas_and_torch_on_one_thread_whoever_calls_it(monkeypatch, serial_grid):
    """Issue 32: ``grid.run_unit(spec, unit)`` called from a notebook differed from the record
    by up to 1.6e-7 relative, because the one-thread settings lived in the runner.  The unit
    applies them itself now: a direct call computes on one BLAS and one torch thread (numba
    keeps its threads), puts the caller's counts back, and saves the runner's bytes."""
    import torch

    from cotbook.attention import layer

    before = _library_threads()
    torch.set_num_threads(2)
    seen = []
    train = layer.train
    monkeypatch.setattr(layer, "train", lambda c: seen.append(_library_threads()) or train(c))
    direct = {unit: grid.run_unit(TINY, unit) for unit in TINY.units()}
    assert seen and all(s == ({1}, 1, before[2]) for s in seen), seen
    assert torch.get_num_threads() == 2
    torch.set_num_threads(before[1])
    assert _library_threads() == before
    data, _ = grid.assemble(TINY, direct)
    saved = records.load("attention_grid", directory=serial_grid)
    assert records.data_hash(json.loads(json.dumps(data))) == saved.data_sha256


@pytest.mark.parametrize(
    "module",
    ["attention.grid", "attention.protocol", "attention.lottery", "attention.softmax_study",
     "attention.instability", "theory.numerics", "theory.ridge.coverage",
     "simulation.finite_size"],
)  # fmt: skip
def test_every_study_unit_sets_its_own_threads(module):
    """Every study's ``run_unit`` is wrapped by ``_threads.one_thread_unit`` (the behaviour is
    tested on the grid above)."""
    import importlib

    from cotbook import _threads

    run_unit = importlib.import_module(f"cotbook.{module}").run_unit
    wrapper = _threads.one_thread_unit(lambda spec, unit: None)
    assert run_unit.__code__ is wrapper.__code__ and hasattr(run_unit, "__wrapped__")


@pytest.mark.slow
def test_bench_scaling_measures_serial_one_and_two_workers_and_resumes(tmp_path, monkeypatch):
    from cotbook.book import studies

    out = tmp_path / "out"
    args = ["bench", "scaling", "--scale", "tiny", "--workers", "2", "--out", str(out)]
    assert cli.main(args) == 0
    record = records.load("engine_scaling", directory=out)
    runs = record.data["runs"]
    assert list(runs) == ["serial", "workers=1", "workers=2"] and record.data["identical"]
    assert "1 worker process(es)" in runs["workers=1"]["engine"]
    assert set(runs["workers=2"]["unit_seconds"]) == set(TINY.units())
    first = {label: run["wall_s"] for label, run in runs.items()}
    assert record.data["speedup"]["serial / workers=2"] == pytest.approx(
        first["serial"] / first["workers=2"]
    )
    # --resume keeps the runs already measured by this code (none runs again)
    assert cli.main([*args, "--resume"]) == 0
    again = records.load("engine_scaling", directory=out).data["runs"]
    assert {label: run["wall_s"] for label, run in again.items()} == first
    # the chapter's table: measured where run, predicted from the one-worker unit costs
    monkeypatch.setattr(records.load, "__defaults__", (out,))
    rows, caption = studies.scaling()
    costs = list(runs["workers=1"]["unit_seconds"].values())
    # the running chapter's glued numbers
    measured = studies.scaling_measured()
    assert measured.minutes == {label: wall / 60 for label, wall in first.items()}
    assert measured.unit_minutes["workers=1"] == pytest.approx(sum(costs) / 60)
    assert measured.identical and not measured.same_as_grid_record  # no grid record in out
    timed = sorted(out.rglob("attention_grid.json"))  # the grid records the runs wrote
    assert timed
    (out / "attention_grid.json").write_bytes(timed[0].read_bytes())
    assert studies.scaling_measured().same_as_grid_record
    assert [r.engine for r in rows][1:] == ["1 worker process", "2 worker processes", "64 worker processes", "512 worker processes"]
    assert rows[2].measured_min == pytest.approx(first["workers=2"] / 60)
    assert rows[3].measured_min is None
    # predictions count the cluster's start-up and close, as the one-worker run measured them
    overhead = runs["workers=1"]["wall_s"] - sum(costs)
    assert overhead > 0
    assert rows[3].predicted_min == pytest.approx((overhead + max(costs)) / 60)
    assert f"{overhead:.1f} s as the one-worker run measured" in caption
    assert "byte-identical in every run" in caption
    # a run interrupted mid-grid left its checkpoint: --resume runs it again from scratch (the
    # serial one: every run's checkpoint is the runner's, and it starts no cluster)
    (kept,) = out.rglob("serial.json")
    kept.unlink()
    partial = kept.parent / "serial" / "attention_grid.partial"
    partial.mkdir(parents=True)
    (partial / "meta.json").write_text('{"name": "attention_grid"}')
    assert cli.main([*args, "--resume"]) == 0
    again = records.load("engine_scaling", directory=out).data["runs"]
    assert again["workers=2"]["wall_s"] == first["workers=2"]
    assert again["serial"]["wall_s"] != first["serial"] and not partial.exists()



# ---- issue 32, item 5: checkpoints a run must not take over, at the level of run_study ------
# A toy study (no computing) saved under a registered name.
TOY = "theory_accuracy"
_TOY = """
class Toy:
    def __init__(self, seed=0):
        self.seed = seed

    def units(self):
        return ["a", "b", "c"]

    def to_dict(self):
        return {"seed": self.seed}


def toy_unit(spec, unit, pause=0.0):
    import time

    time.sleep(pause)
    return {"seed": spec.seed, "unit": unit, "seconds": pause}


def toy_assemble(spec, done):
    return {"units": done}, {u: r["seconds"] for u, r in done.items()}
"""
_namespace = {}
exec(_TOY, _namespace)
Toy, toy_unit, toy_assemble = (_namespace[k] for k in ("Toy", "toy_unit", "toy_assemble"))


@pytest.fixture
def toy_code(monkeypatch):
    """The toy's code hash, without hashing the theory modules its record name stands for
    (execution caches the hash it gives each unit: patched too)."""
    monkeypatch.setattr(provenance, "source_hash", lambda modules: "0123456789abcdef")
    monkeypatch.setattr(execution, "_source_hash", lambda producers: "0123456789abcdef")


def _toy(out, seed=0, run_unit=toy_unit, **kw):
    return runner.run_study(
        TOY, "tiny", Toy(seed), run_unit, toy_assemble, out=out, progress=False, **kw
    )


def _stops_after(n):
    """A unit function that finishes ``n`` units, then is interrupted (Ctrl-C)."""
    ran = []

    def run_unit(spec, unit):
        if len(ran) == n:
            raise KeyboardInterrupt
        ran.append(unit)
        return toy_unit(spec, unit)

    return run_unit


def _never(spec, unit):
    pytest.fail(f"the unit {unit} was computed")


def test_a_fresh_run_does_not_take_over_a_folder_without_meta_json(tmp_path, toy_code):
    """Fault 1: a seed-1 run interrupted, its meta.json lost; a fresh seed-0 run saved a record
    that said seed 0 and held the seed-1 unit. Now it is refused, naming the folder."""
    with pytest.raises(KeyboardInterrupt):
        _toy(tmp_path, seed=1, run_unit=_stops_after(1))
    partial = tmp_path / f"{TOY}.partial"
    (partial / "meta.json").unlink()
    for resume in (False, True):
        with pytest.raises(ValueError, match="has no meta.json") as err:
            _toy(tmp_path, seed=0, run_unit=_never, resume=resume)
        assert str(partial) in str(err.value)
    assert not (tmp_path / f"{TOY}.json").exists()


_TOY_RUN = _TOY + textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path
    from cotbook.book.runs import runner
    from cotbook.book.records import provenance

    provenance.source_hash = lambda modules: "0123456789abcdef"  # as the fixture toy_code
    out, go = Path(sys.argv[1]), Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    try:
        runner.run_study(
            "theory_accuracy", "tiny", Toy(), lambda spec, unit: toy_unit(spec, unit, 0.5),
            toy_assemble, out=out, resume=True, progress=False,
        )
    except ValueError as err:
        print("refused:", err, flush=True)
        sys.exit(3)
    print("saved", flush=True)
    """
)


@pytest.mark.slow
def test_two_concurrent_resumes_one_runs_the_other_is_refused_at_once(tmp_path, toy_code):
    """Fault 2: two `--resume` started together on one folder both ran, and one crashed in
    Checkpoint.remove (5 of 5). Now one runs and the other is refused at once, naming the
    folder and the lock; the record is the one run's."""
    with pytest.raises(KeyboardInterrupt):
        _toy(tmp_path, run_unit=_stops_after(1))
    for lock in list(checkpoint._Lock._held_here.values()):
        lock.release()  # the interrupted run's process ended: its lock went with it
    go = tmp_path / "go"
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _TOY_RUN, str(tmp_path), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.stdout.readline() == "ready\n"
    go.touch()
    outcomes = [(run.wait(60), run.stdout.read(), run.stderr.read()) for run in runs]
    codes = sorted(code for code, _, _ in outcomes)
    assert codes == [0, 3], outcomes
    refused = next(out for code, out, _ in outcomes if code == 3)
    assert f"writing to {tmp_path}: it holds the lock {tmp_path / TOY}.lock" in refused
    assert "Traceback" not in "".join(err for _, _, err in outcomes)
    record = records.load(TOY, directory=tmp_path)
    assert sorted(record.data["units"]) == ["a", "b", "c"]
    assert not (tmp_path / f"{TOY}.partial").exists() and not (tmp_path / f"{TOY}.lock").exists()


@pytest.mark.parametrize(
    ("damage", "what"),
    [
        (lambda text: '"a string"', "not a unit of a checkpoint"),
        (lambda text: text.replace('"seed": 0', '"seed": 5'), "does not have the keyed hash"),
    ],
    ids=["a JSON string (fault 3)", "an edited unit (fault 4)"],
)
@pytest.mark.slow
def test_resume_refuses_a_damaged_or_edited_unit_by_name(tmp_path, toy_code, damage, what):
    """Fault 3: a unit file holding a JSON string crashed --resume with TypeError; fault 4: an
    edited unit was resumed without notice. Both are refused, naming the file; removing it
    makes --resume compute that unit again."""
    with pytest.raises(KeyboardInterrupt):
        _toy(tmp_path, run_unit=_stops_after(2))
    (unit,) = (tmp_path / f"{TOY}.partial").glob("unit-a-*.json")
    unit.write_text(damage(unit.read_text()))
    with pytest.raises(ValueError, match=what) as err:
        _toy(tmp_path, run_unit=_never, resume=True)
    assert str(unit) in str(err.value) and "remove that file" in str(err.value)
    unit.unlink()
    _toy(tmp_path, resume=True)
    assert records.load(TOY, directory=tmp_path).data["units"]["a"]["seed"] == 0


def test_a_scheduler_that_never_answers_is_refused_within_the_deadline(monkeypatch):
    """A listener that accepts the connection and never replies (the handshake used to hang
    for minutes), and one that answers in another protocol.  Neither refusal leaves a
    half-built ``Client`` behind: the garbage collector finalised one inside the next
    cluster's loop start-up, which then hung or failed (seen under load, CI included)."""
    import gc
    import socket
    import threading

    from distributed import Client

    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 2)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    chatty = socket.socket()
    chatty.bind(("127.0.0.1", 0))
    chatty.listen(8)
    chatty.settimeout(0.2)
    done = threading.Event()

    def answer_http():
        while not done.is_set():
            try:
                conn, _ = chatty.accept()
            except OSError:  # a timeout: look at ``done`` again
                continue
            with conn:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" * 64)

    server_thread = threading.Thread(target=answer_http, daemon=True)
    server_thread.start()
    before = {id(o) for o in gc.get_objects() if type(o) is Client}  # the module's cluster's
    try:
        for server in (silent, chatty):
            address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
            start = time.monotonic()
            with pytest.raises(ValueError, match="cannot be reached within 2 s"):
                with execution.open_engine(scheduler=address):
                    pass
            assert time.monotonic() - start < 5
    finally:
        done.set()
        server_thread.join(5)
        silent.close()
        chatty.close()
    left = [o for o in gc.get_objects() if type(o) is Client and id(o) not in before]
    assert [o for o in left if o.status != "closed"] == []


def test_a_local_cluster_serves_its_dashboard_on_this_machine_only(cluster):
    server = cluster._client.cluster.scheduler.services["dashboard"]  # tornado's HTTPServer
    addresses = {s.getsockname()[0] for s in server._sockets.values()}
    assert addresses and addresses <= {"127.0.0.1"}


def test_a_local_cluster_leaves_this_process_environment_as_it_found_it(monkeypatch):
    """The nannies live in this process and write their workers' variables into its
    environment: ``NUMBA_NUM_THREADS=1`` there made the next numba compilation here raise
    once numba's threads had launched, so it is set in the worker processes only, and the
    others are put back when the cluster closes."""
    monkeypatch.setenv("NUMBA_NUM_THREADS", "2")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    with execution.open_engine(workers=1) as engine:
        assert list(engine._client.run(_numba_threads).values()) == [1]  # still one thread
        assert os.environ["NUMBA_NUM_THREADS"] == "2"
    assert "MKL_NUM_THREADS" not in os.environ


def _square(spec, unit):
    return {"square": unit * unit}


@pytest.fixture
def bare_scheduler(monkeypatch):
    """A scheduler with no worker (in this process), and the engine's waits shortened."""
    from distributed import LocalCluster

    monkeypatch.setattr(execution, "NO_WORKERS_S", 1)
    monkeypatch.setattr(execution, "NO_WORKERS_REPEAT_S", 1)
    monkeypatch.setattr(execution, "_POLL_S", 0.2)
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        yield cluster


def test_the_no_worker_wait_is_within_the_issue_s_30_seconds():
    assert 0 < execution.NO_WORKERS_S <= 20 and execution._POLL_S <= 5
    assert execution.NO_WORKERS_S + execution._POLL_S <= 30
    parser_help = subprocess.run(
        [sys.executable, "-m", "cotbook", "experiments", "--help"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    ).stdout
    assert f"no running worker for {execution.NO_WORKERS_S} s" in " ".join(parser_help.split())
    chapter = " ".join((ROOT / "book" / "long_runs.md").read_text().split())
    assert f"without a running worker for {execution.NO_WORKERS_S} s" in chapter


def test_a_scheduler_without_workers_is_said_and_waited_for(bare_scheduler, capsys):
    """The run says the cluster has no worker, with the count of finished units, repeats it,
    and finishes every unit once a worker joins."""
    import threading

    joined = threading.Event()

    def join_when_said():
        deadline = time.monotonic() + 30
        while "has had no running worker" not in capsys.readouterr().err:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        time.sleep(1.5)  # one repeat
        bare_scheduler.scale(1)
        joined.set()

    helper = threading.Thread(target=join_when_said)
    with execution.open_engine(scheduler=bare_scheduler.scheduler_address) as engine:
        helper.start()
        outcomes = list(engine.run(_square, None, [1, 2, 3], ()))
    helper.join()
    assert joined.is_set()
    assert sorted(o.result["square"] for o in outcomes) == [1, 4, 9]


def test_a_scheduler_without_workers_stops_the_run_when_asked(bare_scheduler, tmp_path, capsys):
    address = bare_scheduler.scheduler_address
    with execution.open_engine(scheduler=address, no_workers="stop") as engine:
        with pytest.raises(execution.NoWorkers, match="0 of 3 units .* --resume"):
            list(engine.run(_square, None, [1, 2, 3], ()))
    out = tmp_path / "out"
    args = ["experiments", "--scale", "tiny", "--only", "grid", "--out", str(out)]
    assert cli.main([*args, "--scheduler", address, "--no-workers", "stop"]) == 1
    err = capsys.readouterr().err
    assert "has had no running worker" in err and "--resume" in err
    with pytest.raises(ValueError, match="no_workers must be one of"):
        with execution.open_engine(no_workers="later"):
            pass


def test_a_cluster_whose_only_worker_is_paused_is_said_so(bare_scheduler):
    """A worker over its memory limit pauses and runs nothing: no running worker (the
    referee's `dask worker --memory-limit 20MB` waited silently)."""
    from distributed.core import Status

    bare_scheduler.scale(1)
    bare_scheduler.wait_for_workers(1)
    (worker,) = bare_scheduler.workers.values()
    bare_scheduler.loop.add_callback(
        bare_scheduler.scheduler.handle_worker_status_change,
        status="paused",
        worker=worker.address,
        stimulus_id="test-pause",
    )
    deadline = time.monotonic() + 10
    while {ws.status for ws in bare_scheduler.scheduler.workers.values()} != {Status.paused}:
        assert time.monotonic() < deadline, "the worker did not pause"
        time.sleep(0.05)
    with execution.open_engine(
        scheduler=bare_scheduler.scheduler_address, no_workers="stop"
    ) as engine:
        with pytest.raises(execution.NoWorkers, match=r"no running worker .*\(1 paused"):
            list(engine.run(_square, None, [1, 2], ()))
