"""study.ablation: the named solvers of a run config at their
values with the changed parameters, everything else of the config kept;
unknown solvers and parameters named."""
import pytest
import yaml

from study import ablation as ablation_config

CONFIG = {"objective": ["Bilevel Optimization[eval_epochs=0.5]"],
          "dataset": ["wine"], "seed": 1, "n-repetitions": 10,
          "solver": ["SPABA[step_size=3,outer_ratio=0.1,p=0.5,R=90]",
                     "SOBA[step_size=1,outer_ratio=0.01]"]}


def test_the_ablation_changes_only_what_it_is_told(tmp_path, capsys):
    source, out = tmp_path / "c.yml", tmp_path / "a.yml"
    source.write_text(yaml.safe_dump(CONFIG))
    assert ablation_config.main([str(source), "--solvers", "SPABA",
                                 "--set", "R=inf", "--out", str(out)]) == 0
    got = yaml.safe_load(out.read_text())
    assert got["solver"] == ["SPABA[step_size=3,outer_ratio=0.1,p=0.5,"
                             "R=inf]"]
    assert {k: v for k, v in got.items() if k != "solver"} == {
        k: v for k, v in CONFIG.items() if k != "solver"}
    assert "R=inf" in out.read_text().splitlines()[0]


@pytest.mark.parametrize("solvers, change, said", [
    ("MRBO", "R=inf", "['MRBO'] not in the config"),
    ("SPABA", "rho=1", "SPABA has no parameter ['rho']"),
    # values the solver's own configuration check refuses, up front
    ("SPABA", "R=-3", "--set R=-3: SPABA refuses it (R must be > 0 "
                      "(math.inf disables clipping), got -3)"),
    ("SPABA", "p=2", "--set p=2: SPABA refuses it (p must be in (0, 1], "
                     "got 2)"),
    ("SOBA", "step_size=[1,-1]", "--set step_size=[1,-1]: SOBA refuses it "
                                 "(step_size must be a finite number > 0, "
                                 "got -1)"),
])
def test_what_cannot_be_ablated_is_named(tmp_path, capsys, solvers, change,
                                         said):
    source, out = tmp_path / "c.yml", tmp_path / "a.yml"
    source.write_text(yaml.safe_dump(CONFIG))
    with pytest.raises(SystemExit) as exc:
        ablation_config.main([str(source), "--solvers", solvers, "--set",
                              change, "--out", str(out)])
    assert exc.value.code == 2
    assert said in capsys.readouterr().err
    assert not out.exists()
