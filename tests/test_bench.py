"""Smoke tests of the speed script ``python -m tools.bench``: the tables
print on a small problem, the subprocess probes find the module they
import by name, the targets load from their data file, and a bad solver
name is refused; baseline solvers are accepted and timed."""
import json

import pytest

import bench_helpers  # noqa: F401 (puts the repository on sys.path)
from tools.bench import cli, probes, settings, shapes


def test_targets_come_from_the_data_file():
    data = json.loads(settings.TARGETS_FILE.read_text())
    assert settings.SHAPE_TARGETS == data["shapes"]
    assert settings.NON_FULL_TARGET == data["non_full_x_soba"]
    assert set(settings.SHAPE_TARGETS) <= set(shapes.SHAPE_SPECS) | {
        "fashion"}
    assert set(settings.NON_FULL_TARGET) <= set(settings.NON_FULL)


def test_quick_run_prints_its_tables(capsys, tmp_path):
    out = tmp_path / "figures.json"
    assert cli.main(["--quick", "--skip-compile", "--skip-memory",
                     "--solvers", "SOBA,SPABA", "--dim", "4", "--n", "300",
                     "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1. Steady state" in text and "2. Full pass" in text
    figures = json.loads(out.read_text())
    assert set(figures["steady"]) == {"SOBA", "SPABA"}
    assert set(figures["non_full"]) == {"SPABA"}
    assert figures["steady"]["SOBA"]["samples_per_iter"] == 128.0
    assert figures["full_pass"]["samples"] == 600


def test_probe_children_import_the_bench_by_name(tmp_path):
    """A compile child (default numba cache: a load, the core being
    compiled by the test above) and the memory children (baseline and one
    solver) run and report."""
    comp = probes.run_child(probes.compile_code("SOBA"))
    assert comp["first_run_s"] >= 0 and comp["core_import_s"] >= 0
    data = shapes.quadratic_data(4, 300)
    path = tmp_path / "data.npz"
    probes.save_data(data, path)
    back = probes.load_data(path)
    assert back["task"] == "quadratic" and back["dim_x"] == 4
    mem = probes.memory_figures(["SOBA"], path, 16, 50, jobs=2)
    assert set(mem) == {"baseline", "SOBA"}
    assert mem["SOBA"]["peak_mib"] > 0 and not mem["SOBA"]["diverged"]


def test_unknown_solver_is_refused(capsys):
    try:
        cli.parse_args(["--solvers", "SOBA,ADAM"])
    except SystemExit as err:
        assert err.code == 2
    assert "unknown solvers ['ADAM']" in capsys.readouterr().err


def test_baseline_names_are_accepted(capsys):
    args = cli.parse_args(["--solvers", "StocBiO,SOBA,MRBO", "--steady-only"])
    assert args.presets == ["SOBA"] and args.baselines == ["StocBiO", "MRBO"]
    assert args.skip_compile and args.skip_memory
    config = shapes.make_config("VRBO", 16, n=300, m=300, sampling="blocks")
    assert type(config).__name__ == "BaselineConfig"
    assert (config.algorithm, config.batch_size, config.sampling) == (
        "VRBO", 16, "blocks")
    assert config.step_size == settings.STEP_SIZE


def test_quick_baseline_run_is_finite(capsys, tmp_path):
    """One baseline on a small quadratic problem: a finite us per outer
    iteration, and SOBA measured beside it for the per-sample ratio."""
    import math
    out = tmp_path / "figures.json"
    assert cli.main(["--quick", "--steady-only", "--solvers", "StocBiO",
                     "--dim", "4", "--n", "300", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "1b. Baselines per sample evaluation against SOBA" in text
    figures = json.loads(out.read_text())
    res = figures["steady"]["StocBiO"]
    assert math.isfinite(res["us_per_iter"]) and res["us_per_iter"] > 0
    assert not res["diverged"] and res["samples_per_iter"] > 128
    assert set(figures["steady"]) == {"StocBiO", "SOBA"}
    assert math.isfinite(figures["baseline_ns_x_soba"]["StocBiO"])


def test_anchor_versus_pairs_our_solver_with_a_reference_one():
    """--versus MA-SOBA=SOBA: MA-SOBA is timed, the reference runs SOBA,
    and the ratio divides by the reference's SOBA."""
    from tools.bench.anchor import parse_args, table_rows
    args = parse_args(["--solvers", "SOBA", "--versus",
                       "MA-SOBA=SOBA,SFFBA=SABA", "--shapes", "ijcnn1",
                       "--samplings", "blocks"])
    assert args.solvers == ["SOBA", "MA-SOBA", "SFFBA"]
    assert args.reference_solvers == ["SOBA", "SABA"]
    rounds = [dict(reference={"SOBA|ijcnn1": 50.0, "SABA|ijcnn1": 400.0},
                   ours={"SOBA|ijcnn1|blocks": dict(us_per_iter=40.0),
                         "MA-SOBA|ijcnn1|blocks": dict(us_per_iter=45.0),
                         "SFFBA|ijcnn1|blocks": dict(us_per_iter=60.0)})]
    rows = table_rows(rounds, args.solvers, args.shapes, args.samplings,
                      args.versus)
    ratio = {row["solver"]: row["blocks_ratio"][0] for row in rows}
    assert ratio == {"SOBA": 0.8, "MA-SOBA": 0.9, "SFFBA": 0.15}
    with pytest.raises(SystemExit):
        parse_args(["--versus", "MA-SOBA"])
