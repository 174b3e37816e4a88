"""Every command of study/ and tools/ that writes a file from input files
refuses an output path that names one of its inputs, before it reads or
runs anything: the input is left as it was (``tools.arguments``)."""
import json
import os
import shutil

import pandas as pd
import pytest
import yaml

from bench_helpers import ROOT, SMALL
from study import ablation, confirm, holdout
from tools import figures, from_reference, offline_page, select
from tools.tune import adequacy, cli as tune

RECORD = dict(dataset=SMALL, metric="value",
              budget=dict(trials=1, epochs=2, evals=3, splits=1),
              solvers={"SOBA": dict(all_trials=[])})
RESULTS = pd.DataFrame(dict(
    dataset_name=SMALL, solver_name="SOBA[step_size=0.1]", idx_rep=0,
    time=[0.0, 1.0], objective_value=[2.0, 1.0], objective_epochs=[0, 1],
    objective_diverged=0))
REFERENCE = """objective:
  - Bilevel Optimization
dataset:
  - ijcnn1
solver:
  - SOBA[batch_size=64,outer_ratio=0.1,step_size=0.1]
"""


def _record(tmp_path):
    path = tmp_path / "R.json"
    path.write_text(json.dumps(RECORD))
    return path


def _config(tmp_path):
    path = tmp_path / "C.yml"
    shutil.copy(os.path.join(ROOT, "study/configs/tuned_wine.yml"), path)
    return path


def _results(tmp_path):
    path = tmp_path / "R.parquet"
    RESULTS.to_parquet(path)
    return path


def _tune(tmp_path, *extra):
    return ["--dataset", SMALL, "--solvers", "SOBA", "--trials", "1",
            "--epochs", "1", "--storage", str(tmp_path / "new.db"),
            "--first", "none", *extra]


def _old_storage(tmp_path):
    """A --continue-from storage and its record (only their paths are
    read before the outputs are checked)."""
    old = tmp_path / "old.db"
    old.write_bytes(b"an older tuning's database")
    old.with_suffix(".json").write_text(json.dumps(RECORD))
    return old


# (command, option, the input it must not replace, argv without the
# option's value)
def _cases(tmp_path):
    record, config = _record(tmp_path), _config(tmp_path)
    results = _results(tmp_path)
    old = _old_storage(tmp_path)
    page = tmp_path / "page.html"
    page.write_text("<html><body>results</body></html>")
    source = tmp_path / "reference.yml"
    source.write_text(REFERENCE)
    reuse = tmp_path / "old_confirm.json"
    reuse.write_text(json.dumps(dict(solvers={}, candidates=40)))
    return {
        "study.confirm --out": (confirm.main, "--out", record,
                                [str(record)]),
        "study.confirm --write": (confirm.main, "--write", record,
                                  [str(record)]),
        "study.confirm --out on --reuse": (
            confirm.main, "--out", reuse,
            [str(record), "--reuse", str(reuse)]),
        "study.holdout --out": (holdout.main, "--out", record,
                                [str(record), "--solvers", "SOBA"]),
        "study.ablation --out": (ablation.main, "--out", config,
                                 [str(config), "--solvers", "SPABA",
                                  "--set", "R=inf"]),
        "tools.select --write": (select.main, "--write", results,
                                 [str(results)]),
        "tools.tune --write on --continue-from": (
            tune.main, "--write", old,
            _tune(tmp_path, "--continue-from", str(old))),
        "tools.tune --record on --continue-from's record": (
            tune.main, "--record", old.with_suffix(".json"),
            _tune(tmp_path, "--continue-from", str(old))),
        "tools.tune --write on --first config=": (
            tune.main, "--write", config,
            _tune(tmp_path, "--first", f"config={config}")),
        "tools.tune.adequacy --figure": (adequacy.main, "--figure", record,
                                         [str(record)]),
        "tools.figures --out": (figures.main, "--out", results,
                                [str(results)]),
        "tools.offline_page --output": (offline_page.main, "--output",
                                        page, [str(page)]),
        "tools.from_reference --write": (from_reference.main, "--write",
                                         source, [str(source)]),
    }


CASES = ["study.confirm --out", "study.confirm --write",
         "study.confirm --out on --reuse", "study.holdout --out",
         "study.ablation --out", "tools.select --write",
         "tools.tune --write on --continue-from",
         "tools.tune --record on --continue-from's record",
         "tools.tune --write on --first config=",
         "tools.tune.adequacy --figure", "tools.figures --out",
         "tools.offline_page --output", "tools.from_reference --write"]


@pytest.mark.parametrize("case", CASES)
def test_an_output_that_is_an_input_is_refused(tmp_path, capsys, case):
    main, option, source, argv = _cases(tmp_path)[case]
    before = source.read_bytes()
    # the same file under another spelling: ./x, a symbolic link
    link = tmp_path / "link"
    link.symlink_to(source)
    for same in (source, tmp_path / "." / source.name, link):
        with pytest.raises(SystemExit) as exc:
            main([*argv, option, str(same)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert f"{option} {same} is an input of this command" in err, err
        assert "write elsewhere" in err
        assert source.read_bytes() == before
    assert not (tmp_path / "new.db").exists()  # tools.tune opened nothing


def test_two_outputs_on_one_file_are_refused(tmp_path, capsys):
    record = _record(tmp_path)
    out = tmp_path / "out.json"
    with pytest.raises(SystemExit) as exc:
        confirm.main([str(record), "--out", str(out), "--write", str(out)])
    assert exc.value.code == 2
    assert f"--write {out} is also --out" in capsys.readouterr().err
    assert not out.exists()


def test_outputs_elsewhere_are_written(tmp_path):
    """The check refuses only the inputs' files: the ablation of a config
    next to it is written."""
    config = _config(tmp_path)
    out = tmp_path / "C_noclip.yml"
    assert ablation.main([str(config), "--solvers", "SPABA", "--set",
                          "R=inf", "--out", str(out)]) == 0
    assert yaml.safe_load(out.read_text())["solver"][0].startswith("SPABA[")
