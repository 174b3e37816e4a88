"""Bad arguments of the study's readings, refused with the argument
named: study.verdicts' claims file, checked whole against the results
before any claim is read (every claim it could not pair, every key it
would ignore and every pattern that is no regular expression named at
once: ``study.claims``; the stored claims are sound on the stored
results); ``--budget`` a finite number > 0 (study.verdicts,
study.table); study.table's ``--label`` PATTERN a regular
expression."""
import os

import pytest
import yaml

from bench_helpers import ROOT
from study import table as study_table
from study import verdicts as sv
from study.tests.test_verdicts import _runs

GOOD = dict(name="SPABA best", tasks="^digits", a="SPABA", b="rival")
BAD = [
    (dict(name="misspelt", tasks="^digits", a="SFFAB", b="rival"),
     "claim 2 'misspelt': a: 'SFFAB' is no solver of the results there; "
     "the datasets its tasks match (digits[a=1]) hold MSEBA, SFFBA, SOBA, "
     "SPABA, SRBA"),
    (dict(name="rivals", tasks="^digits", a="SPABA", b="rivals"),
     "claim 3 'rivals': b: 'rivals' is neither 'rival', 'baselines' nor a "
     "solver of the results there"),
    (dict(name="no task", tasks="^covtype", a="SPABA", b="rival"),
     "claim 4 'no task': tasks: '^covtype' matches no dataset of the "
     "results; they hold digits[a=1], wine[b=2]"),
    (dict(name="a quantity", tasks="^wine", a="SPABA", b="SOBA",
          quantity="h_end"),
     "claim 5 'a quantity': unknown key 'quantity'; the keys of a claim "
     "are name: "),
    (dict(name="bad pattern", tasks="([", a="SPABA", b="rival"),
     "claim 6 'bad pattern': tasks: '([' is not a regular expression "
     "(unterminated character set at position 1)"),
    (dict(name="no b", tasks="^wine", a="SPABA"),
     "claim 7 'no b' lacks ['b']"),
    (dict(name="sign", tasks="^wine", a="SPABA", b="SOBA", sign=0),
     "claim 8 'sign': sign: 0; allowed: -1 (a is lower than b) or 1"),
    (dict(name="SPABA best", tasks="^wine", a="SPABA", b="SOBA"),
     "claim 9 'SPABA best': the name of claim 1 too"),
    (dict(name="except", tasks="^wine", a="SPABA", b="rival",
          **{"except": ["SRAB"]}),
     "claim 10 'except': except: ['SRAB'] not among the solvers of the "
     "results there"),
    (dict(name="no baseline", tasks="^wine", a="SOBA", b="baselines"),
     "claim 11 'no baseline': b: 'baselines' with none of the baselines "
     "(SOBA) there"),
    (dict(name="primary", tasks="^wine", a="SPABA", b="SOBA",
          primary="h_budjet"),
     "claim 12 'primary': primary: 'h_budjet'; allowed: h_budget, h_end, "
     "err_budget, err_end, own_budget, own_end"),
]


def test_every_error_of_a_claims_file_is_named_at_once(tmp_path, capsys):
    results, claims = tmp_path / "r.parquet", tmp_path / "c.yml"
    _runs(reps=2).to_parquet(results)
    claims.write_text(yaml.safe_dump(
        {"baselines": ["SOBA"], "claims": [GOOD] + [c for c, _ in BAD]},
        sort_keys=False))
    for extra in ([], ["--summary"]):
        with pytest.raises(SystemExit) as exc:
            sv.main([str(results), "--claims", str(claims), *extra])
        assert exc.value.code == 2
        out, err = capsys.readouterr()
        assert out == ""  # no verdict is read
        assert f"--claims {claims}: {len(BAD)} errors" in err
        for _, said in BAD:
            assert said in err, said


@pytest.mark.parametrize("text, said", [
    ("claims: [", "not YAML"),
    ("- a list", "a YAML mapping with 'claims:'"),
    ("claims: []\nbaseline: [SOBA]", "unknown top-level keys ['baseline']"),
    ("claims: [SPABA]", "claim 1: 'SPABA' is not a mapping"),
    ("claims: []\nprimary: test_error", "primary: 'test_error'; allowed: "
     "h_budget, h_end"),
])
def test_a_claims_file_of_another_shape_is_named(tmp_path, capsys, text,
                                                 said):
    results, claims = tmp_path / "r.parquet", tmp_path / "c.yml"
    _runs(reps=2).to_parquet(results)
    claims.write_text(text)
    with pytest.raises(SystemExit) as exc:
        sv.main([str(results), "--claims", str(claims)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"--claims {claims}: " in err and said in err


def test_the_stored_claims_are_sound_on_the_stored_results():
    """Every claim of study/claims.yml reads on the results the study page
    gives it (docs/study.md: the fashion C_r = 0.02 results, tuned there
    or transferred)."""
    from study.claims import check_claims, read_claims

    data = os.path.join(ROOT, "study", "data")
    spec = read_claims(str(sv.CLAIMS))
    common = [os.path.join(data, f"study_{name}.parquet") for name in (
        "fashion_p5", "fashion_p7", "fashion_p9", "digits", "breast_cancer",
        "wine", "wine_noclip", "Simulated")]
    for last in ("fashion_l2_p9", "fashion_l2_p9_transferred"):
        df = sv.load(common + [os.path.join(data, f"study_{last}.parquet")])
        assert check_claims(spec, sv.solvers_by_dataset(df)) is spec


@pytest.mark.parametrize("budget", ["-1", "0", "nan", "inf", "ten"])
@pytest.mark.parametrize("command", ["study.verdicts", "study.table"])
def test_a_budget_is_a_finite_number_of_epochs(tmp_path, capsys, budget,
                                               command):
    results = tmp_path / "r.parquet"
    _runs(reps=2).to_parquet(results)
    main = sv.main if command == "study.verdicts" else study_table.main
    with pytest.raises(SystemExit) as exc:
        main([str(results), "--budget", budget])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"--budget must be a finite number > 0, got '{budget}'" in err


def test_a_label_pattern_is_a_regular_expression(tmp_path, capsys):
    results = tmp_path / "r.parquet"
    _runs(reps=2).to_parquet(results)
    with pytest.raises(SystemExit) as exc:
        study_table.main([str(results), "--budget", "10", "--label",
                          "([=clipping off"])
    assert exc.value.code == 2
    assert ("--label '([=clipping off': its PATTERN '([' is not a regular "
            "expression (unterminated character set at position 1)"
            ) in capsys.readouterr().err
