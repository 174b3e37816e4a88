"""study.verdicts: the instances paired by (dataset, seed,
repetition), a diverged run read as the worst value, each claim's
opponent chosen as the claims file says, the verdicts of study.paired,
and the data and performance profiles' numbers on hand-made curves."""
import numpy as np
import pandas as pd
import pytest
import yaml

from study import verdicts as sv
from study import paired as verdicts
from study.claims import READINGS, primary_of

# the grid of a tuning of 10 epochs: the budget is read at 10 epochs
OBJECTIVE = f"Bilevel Optimization[eval_epochs={10 / 63!r}]"
GAIN = {"SPABA": 0.08, "SOBA": 0.04, "SFFBA": 0.05, "MSEBA": 0.06,
        "SRBA": 0.02}


def _runs(reps=10, diverge=(), datasets=("digits[a=1]", "wine[b=2]")):
    """H = 1 - gain x epochs (+ a small per-instance shift) at 0, 5, 10,
    15 epochs; the runs in ``diverge`` ((solver, rep)) flagged from 10
    epochs on."""
    rows = []
    for data in datasets:
        for rep in range(reps):
            shift = 0.001 * rep
            for solver, gain in GAIN.items():
                for e in (0.0, 5.0, 10.0, 15.0):
                    bad = (solver, rep) in diverge and e >= 10
                    h = 1.0 - gain * e / 15 + shift * (e > 0)
                    rows.append(dict(
                        objective_name=OBJECTIVE,
                        dataset_name=data, base_seed=1, idx_rep=rep,
                        solver_name=f"{solver}[step_size=0.1]",
                        objective_epochs=e,
                        objective_value=np.nan if bad else h,
                        objective_test_error=0.2 - gain * e / 30,
                        objective_test_error_iterate=0.3 - gain * e / 30,
                        objective_diverged=int(bad)))
    return pd.DataFrame(rows)


SPEC = {"baselines": ["SOBA", "SRBA"], "claims": [
    dict(name="SPABA best", tasks="^digits", a="SPABA", b="rival"),
    dict(name="SOBA ahead of SPABA", tasks="^digits", a="SOBA",
         b="SPABA"),
    dict(name="MSEBA over the baselines", tasks=".", a="MSEBA",
         b="baselines"),
    dict(name="no such task", tasks="^covtype", a="SPABA", b="rival")]}


def _files(tmp_path, runs):
    """``runs`` as a results file and ``SPEC`` as a claims file, less its
    claim on a task the results do not hold (the command refuses it)."""
    path, claims = tmp_path / "r.parquet", tmp_path / "c.yml"
    runs.to_parquet(path)
    claims.write_text(yaml.safe_dump(
        {**SPEC, "claims": [c for c in SPEC["claims"]
                            if c["tasks"] != "^covtype"]}))
    return path, claims


def test_a_solver_is_its_name_with_the_clipping_ablation_told_apart():
    assert sv.label("SPABA[R=inf,p=0.1]") == "SPABA[R=inf]"
    assert sv.label("SPABA[p=0.1,R=inf]") == "SPABA[R=inf]"
    assert sv.label("SPABA[R=15.8,p=0.1]") == "SPABA"
    assert sv.label("SOBA") == "SOBA"
    # a solver that never clips carries R=inf in its name: no ablation
    assert sv.label("SOBA[R=inf,step_size=1]") == "SOBA"
    assert sv.label("MA-SOBA[rho=0.1,R=inf]") == "MA-SOBA"


def test_claims_are_decided_on_the_paired_instances():
    runs = sv.readings(_runs())
    assert (runs["budget"] == 10.0).all()
    tables = sv.verdict_tables(runs, SPEC)
    h = tables["h_budget"].set_index("name")
    # no instance of covtype: the claim is not read
    assert list(h.index) == ["SPABA best", "SOBA ahead of SPABA",
                             "MSEBA over the baselines"]
    # SPABA's strongest rival is MSEBA; d = (0.06 - 0.08) x 10/15 on each
    # of the 10 digits instances
    assert h.loc["SPABA best", "against"] == \
        "MSEBA (strongest rival on these instances)"
    assert h.loc["SPABA best", "n"] == 10
    assert h.loc["SPABA best", "median"] == pytest.approx(-0.02 * 10 / 15)
    assert h.loc["SPABA best", "p"] == pytest.approx(2 / 1024)
    # Holm over the three claims: the smallest p (20 instances, all of one
    # sign) times 3, then the next ones times 2 and 1
    assert sorted(tables["h_budget"]["p_holm"]) == pytest.approx(
        [3 * 2 / 2 ** 20, 2 * 2 / 1024, 2 * 2 / 1024])
    assert h.loc["SPABA best", "verdict"] == "holds"
    assert h.loc["SOBA ahead of SPABA", "verdict"] == "does not hold"
    # the baselines' median, instance by instance: (0.04 + 0.02) / 2; 20
    # instances of both datasets
    assert h.loc["MSEBA over the baselines", "n"] == 20
    assert h.loc["MSEBA over the baselines", "median"] == pytest.approx(
        -(0.06 - 0.03) * 10 / 15)
    assert set(tables) == {q for q, _ in sv.QUANTITIES}


def test_a_diverged_run_counts_as_the_worst_value():
    # SPABA diverges at 10 epochs on 6 of the 10 digits instances
    df = _runs(diverge={("SPABA", r) for r in range(6)})
    runs = sv.run_rows(df, budget=10.0)
    table = sv.instance_table(runs, "h_budget")
    spaba = table["SPABA"].xs("digits[a=1]", level="dataset")
    assert np.isinf(spaba.iloc[:6]).all() and np.isfinite(
        spaba.iloc[6:]).all()
    # at the end too (its last sound point is not its end)
    assert np.isinf(sv.instance_table(runs, "h_end")["SPABA"].xs(
        "digits[a=1]", level="dataset").iloc[:6]).all()
    h = sv.verdict_tables(runs, SPEC)["h_budget"].set_index("name")
    assert h.loc["SPABA best", "median"] == np.inf
    assert h.loc["SPABA best", "verdict"] == "inconclusive"


def test_two_configurations_of_a_solver_on_one_instance_are_refused():
    df = _runs(reps=2)
    twin = df[df.solver_name == "SOBA[step_size=0.1]"].assign(
        solver_name="SOBA[step_size=1]")
    runs = sv.run_rows(pd.concat([df, twin]), budget=10.0)
    with pytest.raises(ValueError, match="'SOBA'.*run twice"):
        sv.instance_table(runs, "h_budget")


def test_the_work_to_reach_the_target_and_the_profiles():
    df = _runs(reps=1, datasets=("digits[a=1]",))
    # H_L = 1 - 0.08 (SPABA at 15), H0 = 1; tau = 0.5: the target is
    # 1 - 0.04: SPABA reaches it at 10 epochs (1 - 0.0533), MSEBA at 10
    # (1 - 0.04), SFFBA at 15, SOBA at 15, SRBA never; over the budget
    # of 10 epochs
    work = sv.work_to_reach(df, tau=0.5)
    assert work.iloc[0].to_dict() == {"MSEBA": 1.0, "SFFBA": 1.5,
                                      "SOBA": 1.5, "SPABA": 1.0,
                                      "SRBA": np.inf}
    assert sv.work_to_reach(df, tau=0.5, budget=5.0).iloc[0]["SPABA"] == 2
    data, performance = sv.profiles(work)
    assert data.loc[1].to_dict() == {"MSEBA": 1.0, "SFFBA": 0.0,
                                     "SOBA": 0.0, "SPABA": 1.0,
                                     "SRBA": 0.0}
    assert performance.loc[1, "SOBA"] == 0.0
    assert performance.loc[2, "SOBA"] == 1.0
    assert performance.loc[8, "SRBA"] == 0.0
    # a diverged run reaches the target only before it diverged
    lost = sv.work_to_reach(_runs(reps=1, datasets=("digits[a=1]",),
                                  diverge={("SPABA", 0)}), tau=0.5)
    assert lost.iloc[0]["SPABA"] == np.inf


def test_the_report_states_the_rule_first(tmp_path, capsys):
    path, claims = _files(tmp_path, _runs())
    assert sv.main([str(path), "--claims", str(claims)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"**The rule.** {verdicts.RULE}")
    assert "(epochs: digits 10, wine 10)" in out
    # two levels of one dataset are listed once
    levels = tmp_path / "levels.parquet"
    _runs(datasets=("digits[a=1]", "digits[a=2]")).to_parquet(levels)
    sv.main([str(levels), "--claims", str(claims)])
    assert "(epochs: digits 10)" in capsys.readouterr().out
    assert "| SPABA best | MSEBA (strongest rival on these instances) | 10 |" in out
    # H at the budget decides; the other readings, in parentheses, do not
    assert ("| SOBA ahead of SPABA | does not hold | "
            + " | ".join(["(does not hold)"] * 5) + " |") in out
    assert "**Data profile**" in out and "**Performance profile**" in out
    bad = tmp_path / "bad.yml"
    bad.write_text(yaml.safe_dump({"claims": [dict(name="x", a="SPABA")]}))
    with pytest.raises(SystemExit):
        sv.main([str(path), "--budget", "10", "--claims", str(bad)])
    assert "lacks ['tasks', 'b']" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        sv.main([str(path), "--budget", "10", "--tau", "2"])
    assert "--tau must be in (0, 1)" in capsys.readouterr().err


def test_an_ablation_variant_is_no_rival():
    df = _runs(reps=6)
    # MSEBA without clipping, far ahead: paired with MSEBA by the clipping
    # claim, never SPABA's rival
    variant = df[df.solver_name == "MSEBA[step_size=0.1]"].assign(
        solver_name="MSEBA[step_size=0.1,R=inf]",
        objective_value=lambda x: x.objective_value - 0.5)
    runs = sv.readings(pd.concat([df, variant]))
    spec = {"claims": [
        dict(name="SPABA best", tasks=".", a="SPABA", b="rival"),
        dict(name="clipping helps MSEBA", tasks=".", a="MSEBA",
             b="MSEBA[R=inf]")]}
    h = sv.verdict_tables(runs, spec)["h_budget"].set_index("name")
    assert h.loc["SPABA best", "against"] == \
        "MSEBA (strongest rival on these instances)"
    assert h.loc["clipping helps MSEBA", "median"] == pytest.approx(0.5)
    assert h.loc["clipping helps MSEBA", "verdict"] == "does not hold"


def test_the_summary_alone_is_the_reports_table(tmp_path, capsys):
    """--summary prints the report's table of verdicts, --only its rows
    about one thing, read with Holm's correction over every claim."""
    path, claims = _files(tmp_path, _runs())
    sv.main([str(path), "--claims", str(claims)])
    full = capsys.readouterr().out
    assert sv.main([str(path), "--claims", str(claims), "--summary"]) == 0
    table = capsys.readouterr().out.strip()
    assert table in full and table.startswith("| claim |")
    sv.main([str(path), "--claims", str(claims), "--summary", "--only",
             "SPABA"])
    rows = capsys.readouterr().out.strip().splitlines()
    assert rows[:2] == table.splitlines()[:2]
    assert [r.split(" | ")[0] for r in rows[2:4]] == [
        "| SPABA best", "| SOBA ahead of SPABA"]
    assert rows[-1].startswith("In parentheses: a secondary reading")
    assert all(r in table for r in rows)
    with pytest.raises(SystemExit):
        sv.main([str(path), "--claims", str(claims), "--only", "SPABA"])
    assert "--only goes with --summary" in capsys.readouterr().err


def _long_iteration_runs():
    """``_runs`` with SPABA's iteration across the budget drawing a full
    pass: evaluations at 9 and 10.9 epochs instead of 10, worse than SOBA
    before the budget and better past it."""
    df = _runs()
    spaba = df.solver_name == "SPABA[step_size=0.1]"
    crossing = df[spaba & (df.objective_epochs == 10.0)]
    before = crossing.assign(objective_epochs=9.0,
                             objective_value=1.0 + 0.001 * crossing.idx_rep)
    past = crossing.assign(objective_epochs=10.9, objective_value=0.0)
    return pd.concat([df[~(spaba & (df.objective_epochs == 10.0))], before,
                      past], ignore_index=True)


def test_a_verdict_that_depends_on_where_the_budget_falls_is_shown(
        tmp_path, capsys):
    path, claims = _files(tmp_path, _long_iteration_runs())
    sv.main([str(path), "--claims", str(claims)])
    out = capsys.readouterr().out
    # SPABA's 20 runs are read between 9 and 10.9 epochs (interpolated):
    # ahead of SOBA there and past the budget, behind it before
    assert ("**Where a budget falls in an iteration.** 20 of the 100 runs "
            "have no evaluation within 0.25 epochs of the budget") in out
    assert ("| SOBA ahead of SPABA | H, budget | does not hold | holds | "
            "does not hold |") in out
    sv.main([str(path), "--claims", str(claims), "--summary",
             "--budget-reading", "all"])
    row = [r for r in capsys.readouterr().out.splitlines()
           if r.startswith("| SOBA ahead of SPABA")][0]
    assert row.split(" | ")[1] == "does not hold; holds before the budget"
    # the end: as read, a secondary reading
    assert row.split(" | ")[2] == "(does not hold)"
    sv.main([str(path), "--claims", str(claims), "--summary",
             "--budget-reading", "before", "--only", "SOBA ahead"])
    assert capsys.readouterr().out.splitlines()[2].split(" | ")[1] == \
        "holds"
    with pytest.raises(SystemExit):
        sv.main([str(path), "--claims", str(claims), "--budget-reading",
                 "before"])
    assert "--budget-reading goes with --summary" in capsys.readouterr().err


def test_rereading_only_the_far_runs_is_reading_them_all():
    """``reread`` reads again only the runs whose reading can differ on
    a side: the same rows as reading every run there."""
    df = _long_iteration_runs()
    runs = sv.readings(df)
    for side in ("before", "past"):
        fast = sv.reread(df, runs, side).sort_values(sv.RUN_KEY)
        full = sv.readings(df, None, side).sort_values(sv.RUN_KEY)
        pd.testing.assert_frame_equal(fast.reset_index(drop=True),
                                      full.reset_index(drop=True))
        assert (fast["how"] == side).sum() == 20


def _stopped_runs():
    """``_runs`` with SPABA diverged at 10 epochs on digits instances 3 and
    4, and stopped at 5 epochs (its points at 10 and 15 missing: fewer
    than the others', not by its stopping rule) on digits instances 0, 1
    and 2; SOBA stopped the same way on wine instance 0."""
    df = _runs(diverge={("SPABA", 3), ("SPABA", 4)})
    spaba = (df.solver_name == "SPABA[step_size=0.1]") \
        & (df.dataset_name == "digits[a=1]") & df.idx_rep.isin([0, 1, 2])
    soba = (df.solver_name == "SOBA[step_size=0.1]") \
        & (df.dataset_name == "wine[b=2]") & (df.idx_rep == 0)
    return df[~((spaba | soba) & (df.objective_epochs > 5))]


def test_a_run_stopped_before_a_reading_leaves_the_claims_pairs():
    runs = sv.readings(_stopped_runs())
    stopped = runs[runs["how"] == "stopped"]
    assert len(stopped) == 4 and (stopped["cause"] == "timeout").all()
    assert (runs["how_end"] == "stopped").sum() == 4
    h = sv.instance_table(runs, "h_budget")["SPABA"].xs(
        "digits[a=1]", level="dataset")
    # stopped: no value; diverged: the worst value
    assert h.iloc[:3].isna().all() and np.isinf(h.iloc[3:5]).all()
    tables = sv.verdict_tables(runs, SPEC)
    for q in ("h_budget", "h_end", "err_budget"):
        t = tables[q].set_index("name")
        # 3 of SPABA's 10 digits instances leave its claims' pairs; the
        # 2 diverged stay, as inf
        assert (t.loc["SPABA best", "n"], t.loc["SPABA best",
                                                "dropped"]) == (7, 3)
        assert t.loc["SOBA ahead of SPABA", "n"] == 7
        # a baseline stopped on wine instance 0: the baselines' median is
        # not read there (not SRBA's value alone)
        assert t.loc["MSEBA over the baselines", "n"] == 19
    lost = sv.stopped_losses(runs, SPEC)
    assert ("SPABA best", "H, budget", 3) in lost
    assert ("MSEBA over the baselines", "own y's test error, end", 1) \
        in lost
    assert len(lost) == 3 * 6


def test_the_report_counts_the_instances_each_claim_lost(tmp_path, capsys):
    path, claims = _files(tmp_path, _stopped_runs())
    sv.main([str(path), "--claims", str(claims)])
    out = capsys.readouterr().out
    assert sv.STOPPED_RULE in out.split("\n\n")[0]
    assert ("**Runs stopped before a reading.** 4 of the 100 runs stopped "
            "more than 0.25 epochs before the budget and 4 before the end "
            "(the target of their last point) without diverging (timeout: "
            "4)") in out
    assert "| SPABA best | 3 | 3 | 3 | 3 | 3 | 3 |" in out
    assert "| MSEBA over the baselines | 1 | 1 | 1 | 1 | 1 | 1 |" in out
    # the summary alone says it too, under its table
    sv.main([str(path), "--claims", str(claims), "--summary"])
    assert "| SPABA best | 3 | 3 |" in capsys.readouterr().out
    # none stopped: said in one sentence, the summary unchanged
    path, claims = _files(tmp_path, _runs())
    sv.main([str(path), "--claims", str(claims)])
    assert ("**Runs stopped before a reading.** None of the 100 runs "
            "stopped") in capsys.readouterr().out
    sv.main([str(path), "--claims", str(claims), "--summary"])
    assert "Runs stopped" not in capsys.readouterr().out


def test_a_claim_that_lost_every_instance_is_not_read():
    df = _runs(reps=3, datasets=("digits[a=1]",))
    spaba = df.solver_name == "SPABA[step_size=0.1]"
    runs = sv.readings(df[~(spaba & (df.objective_epochs > 5))])
    tables = sv.verdict_tables(runs, SPEC)
    assert "SPABA best" not in set(tables["h_budget"]["name"])
    assert ("SPABA best", "H, budget", 3) in sv.stopped_losses(runs, SPEC)


def test_a_pooled_verdict_a_task_reverses_is_no_verdict():
    # SPABA ahead of MSEBA on 15 digits instances, behind on 5 of wine
    runs = _runs(reps=15, datasets=("digits[a=1]",))
    wine = _runs(reps=5, datasets=("wine[b=2]",))
    swap = {"SPABA[step_size=0.1]": "MSEBA[step_size=0.1]",
            "MSEBA[step_size=0.1]": "SPABA[step_size=0.1]"}
    wine["solver_name"] = wine["solver_name"].replace(swap)
    both = sv.readings(pd.concat([runs, wine], ignore_index=True))
    spec = {"baselines": ["SOBA"], "claims": [
        dict(name="SPABA ahead", tasks=".", a="SPABA", b="MSEBA"),
        dict(name="SPABA ahead on digits", tasks="^digits", a="SPABA",
             b="MSEBA")]}
    h = sv.verdict_tables(both, spec)["h_budget"].set_index("name")
    d = 0.02 * 10 / 15
    # pooled, 15 of the 20 differences are -d: the test alone would decide
    assert h.loc["SPABA ahead", "median"] == pytest.approx(-d)
    assert h.loc["SPABA ahead", "p_holm"] < verdicts.ALPHA
    assert h.loc["SPABA ahead", "verdict"] == "tasks disagree"
    by = h.loc["SPABA ahead", "by_task"]
    assert list(by) == ["digits", "wine"]
    assert by["digits"][0] == pytest.approx(-d) and by["digits"][1] == 15
    assert by["wine"][0] == pytest.approx(d) and by["wine"][1] == 5
    assert verdicts.tasks_text(by) == f"digits {-d:.4g} (15); wine {d:.4g} (5)"
    # read on one task: no reading by task, the verdict stands
    assert h.loc["SPABA ahead on digits", "verdict"] == "holds"
    assert h.loc["SPABA ahead on digits", "by_task"] == {}
    assert sv.task_of("mnist[variant=fashion,ratio=0.5]") == "mnist"


def _confirmation(path, held_out, diverged=()):
    """A confirmation record (``study.confirm``) with each solver's
    confirmed winner at ``held_out[solver]``."""
    import json
    path.write_text(json.dumps({"solvers": {
        s: {"confirmed": {"held_out": v, "diverged": 3.0 if s in diverged
                          else None}} for s, v in held_out.items()}}))
    return str(path)


def test_the_strongest_rival_is_picked_on_held_out_splits(tmp_path):
    # on the instances MSEBA is SPABA's strongest rival (its median is the
    # lowest after SPABA's); on held-out splits SOBA is, on digits, and
    # SFFBA on wine (SRBA, better there, diverged on a held-out split)
    digits = _confirmation(tmp_path / "d.json", {"SOBA": 1.0, "MSEBA": 1.2,
                                                 "SPABA": 0.5})
    wine = _confirmation(tmp_path / "w.json", {"SFFBA": 2.0, "SRBA": 1.0},
                         diverged=("SRBA",))
    spec = dict(SPEC, claims=[
        dict(name="SPABA best", tasks="^digits", a="SPABA", b="rival"),
        dict(name="SPABA best anywhere", tasks=".", a="SPABA", b="rival")],
        rivals=[dict(tasks="^digits", confirmations=[digits]),
                dict(tasks="^wine", confirmations=[wine])])
    h = sv.verdict_tables(sv.readings(_runs()), spec)["h_budget"] \
        .set_index("name")
    assert h.loc["SPABA best", "against"] == \
        "SOBA (strongest rival on held-out splits)"
    # d = (0.04 - 0.08) x 10/15 against SOBA on each digits instance
    assert h.loc["SPABA best", "median"] == pytest.approx(-0.04 * 10 / 15)
    assert h.loc["SPABA best anywhere", "against"] == (
        "SOBA on digits; SFFBA on wine (strongest rivals on held-out "
        "splits)")
    assert h.loc["SPABA best anywhere", "n"] == 20
    by = h.loc["SPABA best anywhere", "by_task"]
    assert by["wine"][0] == pytest.approx(-0.03 * 10 / 15)


def test_a_rival_on_a_dataset_no_rivals_entry_names_is_refused(tmp_path):
    from study.claims import check_claims
    digits = _confirmation(tmp_path / "d.json", {"SOBA": 1.0})
    spec = dict(SPEC, claims=SPEC["claims"][:1] + [
        dict(name="SPABA best anywhere", tasks=".", a="SPABA", b="rival")],
        rivals=[dict(tasks="^digits", confirmations=[digits])])
    solvers = sv.solvers_by_dataset(_runs())
    with pytest.raises(ValueError, match="b: 'rival' on wine\\[b=2\\], "
                       "which no rivals entry matches"):
        check_claims(spec, solvers)


@pytest.mark.parametrize("rivals, said", [
    ("digits", "rivals: 'digits' is not a list of mappings"),
    ([{"tasks": "^digits"}], "rivals entry 1: {'tasks': '^digits'}; its "
     "keys are tasks:"),
    ([{"tasks": "([", "confirmations": []}],
     "rivals entry 1: tasks: '([' is not a regular expression"),
    ([{"tasks": "^d", "confirmations": ["study/data/none.json"]}],
     "confirmations: study/data/none.json is no file"),
    ([{"tasks": "^d", "confirmations": "study/data/a.json"}],
     "is not a list of paths"),
])
def test_a_bad_rivals_entry_is_named(rivals, said):
    from study.claims import check_claims
    with pytest.raises(ValueError) as err:
        check_claims(dict(SPEC, rivals=rivals))
    assert said in str(err.value)


def _family_tables():
    """Two claims read on two readings, as ``verdict_table`` leaves them
    (before ``adjust_families``)."""
    def table(p, medians):
        return pd.DataFrame(dict(
            name=["A ahead", "B ahead"], against=["C", "C"], n=[10, 10],
            dropped=[0, 0], median=medians, ci_low=medians, ci_high=medians,
            p=p, p_holm=p, verdict=["?", "?"],
            by_task=[{}, {"x": (medians[1], 5)}]))
    return {"h_budget": table([0.01, 0.02], [-1.0, -1.0]),
            "err_end": table([0.004, 0.03], [-1.0, 1.0])}


def test_holm_runs_over_the_primary_readings_and_apart_over_the_others():
    spec = {"claims": [dict(name="A ahead"), dict(name="B ahead")]}
    found = sv.adjust_families(_family_tables(), spec)
    h, err = found["h_budget"], found["err_end"]
    assert list(h["family"]) == ["primary"] * 2
    assert list(err["family"]) == ["secondary"] * 2
    assert list(h["m"]) == [2, 2] and list(err["m"]) == [2, 2]
    # primary: Holm over 0.01, 0.02 -> 0.02, 0.02; both hold
    np.testing.assert_allclose(h["p_holm"], [0.02, 0.02])
    assert list(h["verdict"]) == ["holds", "holds"]
    # secondary: Holm over 0.004, 0.03 -> 0.008, 0.03; B's median is
    # the other way: it does not hold there
    np.testing.assert_allclose(err["p_holm"], [0.008, 0.03])
    assert list(err["verdict"]) == ["holds", "does not hold"]


def test_a_claims_own_primary_reading_moves_it_between_families():
    spec = {"primary": "h_budget",
            "claims": [dict(name="A ahead", primary="err_end"),
                       dict(name="B ahead")]}
    found = sv.adjust_families(_family_tables(), spec)
    h, err = found["h_budget"], found["err_end"]
    assert list(h["family"]) == ["secondary", "primary"]
    assert list(err["family"]) == ["primary", "secondary"]
    # primary: A on err_end (0.004) and B on h_budget (0.02)
    np.testing.assert_allclose([err.at[0, "p_holm"], h.at[1, "p_holm"]],
                               [0.008, 0.02])
    # secondary: A on h_budget (0.01) and B on err_end (0.03)
    np.testing.assert_allclose([h.at[0, "p_holm"], err.at[1, "p_holm"]],
                               [0.02, 0.03])
    # the file's primary, without a claim's own, is h_budget
    assert primary_of({"name": "x"}, {"claims": []}) == "h_budget"
    assert primary_of({"name": "x"}, {"primary": "h_end"}) == "h_end"


def test_the_claims_readings_are_the_verdicts_quantities():
    assert READINGS == tuple(q for q, _ in sv.QUANTITIES)
