"""tools.tune on a dask cluster (--dask-address, --dask-workers): a seeded
tuning holds, trial for trial and bit for bit, what the sequential one
holds; a storage the workers cannot share is refused, naming --storage
(docs/comparisons.md "Parallel")."""
import socket

import optuna
import pytest
from optuna.trial import TrialState

from bench_helpers import SMALL
from tools.tune import cli, cluster, study as tstudy

distributed = pytest.importorskip(
    "distributed", reason="the dask path needs the `distributed` package: "
    "pip install -r requirements.txt")

SOLVERS = "SPABA,SOBA"
STABLE = ["--range", "step_size=0.01:1", "--range", "outer_ratio=0.1:10",
          "--range", "z_ratio=0.1:10"]


def _argv(storage, trials, *extra):
    """A small tuning counted in trials (the work budget has its own
    tests, tests/test_tune_work.py)."""
    return ["--dataset", SMALL, "--solvers", SOLVERS, "--trials",
            str(trials), "--epochs", "2", "--evals", "4", "--storage",
            str(storage), *STABLE, "--budget", "trials", *extra]


def _trials(storage, argv):
    """Per solver, every trial as what it ran and scored: number, state,
    parameters, criterion, reports and attributes (but its times)."""
    settings = cli.settings_of(cli.parser().parse_args(argv))
    store = tstudy.open_storage(str(storage))
    out = {}
    for solver in settings.solvers:
        study = tstudy.load_study(store, settings, solver)
        out[solver] = [
            (t.number, t.state, t.params, t.value, t.intermediate_values,
             {k: v for k, v in t.user_attrs.items()
              if k not in ("seconds", "solver_seconds")})
            for t in sorted(study.get_trials(deepcopy=False),
                            key=lambda t: t.number)]
    return out


@pytest.mark.slow  # 25-60 s: two worker processes start and load the task
def test_a_seeded_tuning_on_a_dask_cluster_equals_the_sequential_one(
        tmp_path, capsys):
    trials = 4
    sequential, on_dask = tmp_path / "seq.db", tmp_path / "dask.log"
    assert cli.main(_argv(sequential, trials)) == 0
    capsys.readouterr()
    with distributed.LocalCluster(n_workers=2, processes=True,
                                  threads_per_worker=1,
                                  dashboard_address=None) as local:
        argv = _argv(on_dask, trials, "--dask-address",
                     local.scheduler_address)
        assert cli.main(argv) == 0
    out = capsys.readouterr().out
    want, got = _trials(sequential, argv), _trials(on_dask, argv)
    assert got == want  # ==: every criterion and report bit for bit
    for solver in want:
        assert len(want[solver]) == trials
        assert all(t[1] in tstudy.COUNTED for t in want[solver])
        assert any(t[1] == TrialState.COMPLETE for t in want[solver])
    # this process printed every trial (the tasks print nothing), then
    # the progress over both solvers
    assert out.count(" trial ") == 2 * trials
    assert "trials 8 of 8 (all solvers), elapsed" in out
    assert "about 0:00:00 left" in out


@pytest.mark.slow
def test_a_cluster_of_this_machine_is_started_with_dask_workers(tmp_path):
    storage = tmp_path / "t.db"
    assert cli.main(_argv(storage, 1, "--dask-workers", "2")) == 0
    for solver, ts in _trials(storage, _argv(storage, 1)).items():
        assert [t[0] for t in ts] == [0]
        assert ts[0][1] in tstudy.COUNTED


@pytest.mark.parametrize("extra, named", [
    (["--jobs", "2", "--dask-workers", "2"], "--jobs and --dask-workers"),
    (["--dask-address", "tcp://127.0.0.1:9", "--dask-workers", "2"],
     "--dask-address and --dask-workers"),
    (["--dask-workers", "0"], "--dask-workers must be an integer >= 1"),
])
def test_one_place_to_run_the_trials(tmp_path, capsys, extra, named):
    with pytest.raises(SystemExit) as exit_:
        cli.main(_argv(tmp_path / "t.db", 2, *extra))
    assert exit_.value.code == 2
    assert named in capsys.readouterr().err
    assert not (tmp_path / "t.db").exists()


@pytest.mark.parametrize("storage", ["sqlite:///:memory:", "sqlite://"])
def test_an_in_memory_storage_is_refused(tmp_path, capsys, storage):
    with pytest.raises(SystemExit) as exit_:
        cli.main(_argv(storage, 2, "--dask-workers", "2"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"--storage {storage}: an in-memory database" in err
    assert "journal file" in err


def test_an_unreachable_scheduler_is_named(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)
    with pytest.raises(SystemExit) as exit_:
        cli.main(_argv(tmp_path / "t.log", 2, "--dask-address",
                       "tcp://127.0.0.1:9"))
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "--dask-address tcp://127.0.0.1:9: cannot connect" in err


def test_a_storage_the_workers_do_not_see_is_refused():
    host = socket.gethostname()
    sees = {"tcp://a:1": (host, True, None),
            "tcp://b:1": ("node2", False, "no file /x/t.log there")}
    text = cluster.storage_problem("/x/t.log", sees, host)
    assert text.startswith("--storage /x/t.log: 1 of 2 dask workers do "
                           "not see it (tcp://b:1: no file /x/t.log there)")
    # seen everywhere: a journal file or a database on several machines
    both = {"tcp://a:1": (host, True, None),
            "tcp://b:1": ("node2", True, None)}
    assert cluster.storage_problem("/x/t.log", both, host) is None
    assert cluster.storage_problem("postgresql://u@db/t", both, host) is None
    # SQLite: on this machine only
    text = cluster.storage_problem("/x/t.db", both, host)
    assert "an SQLite file, and dask workers run on other machines " \
           "(node2)" in text
    here = {"tcp://a:1": (host, True, None)}
    assert cluster.storage_problem("/x/t.db", here, host) is None


def test_a_worker_checks_the_storage_holds_this_tuning(tmp_path):
    storage = str(tmp_path / "t.log")
    name = tstudy.study_name("D", "S")
    host, seen, why = cluster._sees(storage, "D", "S", "key")
    assert (seen, why) == (False, f"no file {storage} there")
    assert not (tmp_path / "t.log").exists()  # not created
    study = optuna.create_study(study_name=name,
                                storage=tstudy.open_storage(storage))
    assert cluster._sees(storage, "D", "S", "key")[1:] == (
        False, "another storage, without this tuning's studies")
    study.set_user_attr(tstudy.CLOCK, {"key": 1.0})
    assert cluster._sees(storage, "D", "S", "key") == (host, True, None)


def test_paths_are_made_absolute_for_the_workers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert tstudy.absolute_storage("t.log") == str(tmp_path / "t.log")
    assert tstudy.absolute_storage("sqlite:///t.db") == \
        f"sqlite:///{tmp_path / 't.db'}"
    assert tstudy.absolute_storage("/a/t.db") == "/a/t.db"
    assert tstudy.absolute_storage("postgresql://u@h/t") == \
        "postgresql://u@h/t"


def test_trials_left_running_by_a_stopped_cluster_are_resumable(tmp_path):
    """The local cluster's trials stopped by Ctrl-C are marked
    interrupted (a rerun runs them again in place), but one stopped while
    drawing its parameters, and those running before, are not."""
    settings = cli.settings_of(cli.parser().parse_args(
        _argv(tmp_path / "t.log", 4)))
    store = tstudy.open_storage(settings.storage)
    study = tstudy.load_study(store, settings, "SOBA")
    before = study.ask()  # running elsewhere before this invocation
    watch = cluster.Watch(cluster.TrialProgress(settings))
    drawn = study.ask()
    drawn.suggest_float("step_size", 0.01, 1, log=True)
    drawn.set_user_attr("parameters", dict(drawn.params))
    partial = study.ask()
    partial.suggest_float("step_size", 0.01, 1, log=True)
    fresh = study.ask()
    watch.mark_interrupted()
    trials = {t.number: t for t in study.get_trials(deepcopy=False)}
    assert tstudy.interrupted(study) == [trials[drawn.number],
                                         trials[fresh.number]]
    assert trials[partial.number].state == TrialState.FAIL
    assert trials[before.number].state == TrialState.RUNNING
    assert tstudy.INTERRUPTED not in trials[before.number].user_attrs
