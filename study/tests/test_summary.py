"""study.summary: the claims x readings table lays out study.verdicts'
statistics (the verdict's mark, the median of d and its interval); the
figure's PNG holds the fingerprint of the numbers it draws, so a page's
``--image`` block shows it while it is current and says it is stale
once the numbers change; facts of the study's code and records."""
import math

import pandas as pd
import pytest

from study import facts as study_facts
from study import summary


def _tables(shift=0.0):
    """Verdict tables of three claims on two readings, as
    ``study.verdicts.verdict_tables`` gives them: H at the budget their
    primary reading, the test error at the end a secondary one."""
    def table(median, family, m):
        return pd.DataFrame([
            dict(name="6.1 A ahead", against="B", n=10, dropped=0,
                 median=median + shift, ci_low=median - 0.1,
                 ci_high=median + 0.1, p=0.002, p_holm=0.01,
                 verdict="holds"),
            dict(name="6.4 clipping helps A", against="A[R=inf]", n=10,
                 dropped=0, median=-math.inf, ci_low=-math.inf,
                 ci_high=-math.inf, p=0.002, p_holm=0.01,
                 verdict="holds"),
            dict(name="6.3 C ahead", against="D", n=10, dropped=0,
                 median=1.1e-16, ci_low=-0.84, ci_high=0.42, p=0.6,
                 p_holm=1.0, verdict="inconclusive")]).assign(
                     family=family, m=m)
    return {"h_budget": table(-0.2187, "primary", 3),
            "err_end": table(-2.235, "secondary", 15)}


@pytest.mark.parametrize("value, text", [
    (0.2187, "0.22"), (-2.235, "−2.2"), (3.27e-11, "3.3e−11"),
    (-math.inf, "−∞"), (1.1e-16, "0"), (40.0, "40")])
def test_numbers_have_two_significant_digits(value, text):
    assert summary.number(value) == text


def test_the_table_has_a_claim_per_row_and_a_reading_per_column():
    text = summary.markdown(_tables())
    lines = text.splitlines()
    assert lines[0] == ("| claim | n | verdict: H, budget | "
                        "test error, end |")
    # the secondary reading's mark in parentheses
    assert lines[2] == ("| 6.1 A ahead | 10 | ✓ −0.22 [−0.32, −0.12] | "
                        "(✓) −2.2 [−2.3, −2.1] |")
    assert "✓ −∞ [−∞, −∞]" in lines[3]
    assert "? 0 [−0.84, 0.42]" in lines[4]
    assert "95% bootstrap interval" in text
    assert "over the 3 claims' primary readings" in text
    assert "over all 15 of them" in text


def test_a_claim_decided_on_another_reading_says_which():
    found = _tables()
    for q, family in (("h_budget", "secondary"), ("err_end", "primary")):
        found[q].loc[0, "family"] = family
    row = summary.markdown(found).splitlines()[2]
    assert row == ("| 6.1 A ahead | 10 | ✓ −2.2 [−2.3, −2.1] (test error, "
                   "end) | (✓) −0.22 [−0.32, −0.12] |")


def test_a_figure_says_when_it_is_stale(tmp_path):
    png = tmp_path / "verdicts.png"
    found = _tables()
    summary.figure(found, png)
    assert summary.stored_fingerprint(png) == summary.fingerprint(found)
    line = summary.image_line(found, str(png), "CMD")
    assert line.startswith("![") and line.endswith(f"({png.as_posix()})")
    moved = _tables(shift=0.01)
    assert summary.fingerprint(moved) != summary.fingerprint(found)
    assert "is stale or missing: `CMD`" in summary.image_line(
        moved, str(png), "CMD")
    assert "is stale" in summary.image_line(found, str(tmp_path / "no.png"),
                                            "CMD")


def test_the_command_refuses_a_figure_that_is_not_a_png(capsys):
    with pytest.raises(SystemExit):
        summary.main(["--figure", "x.svg"])
    assert "PNG" in capsys.readouterr().err


@pytest.mark.parametrize("spec, text", [
    ("const study.paired.LEVEL pct", "95"),
    ("const study.budget_reading.NEAR", "0.25"),
    ("wilcoxon_floor 10", "0.002"),  # 2 / 2 ** 10
])
def test_facts_of_the_code(spec, text):
    assert study_facts.value(spec) == text


@pytest.mark.parametrize("task", list(study_facts.TASKS))
def test_facts_of_the_records(task):
    """A tuning's work is its trials' work x epochs x splits, thousands
    grouped; the confirmation counts every solver once."""
    def number(spec):
        return float(study_facts.value(spec).replace("\u2009", ""))
    assert number(f"tuning {task} epochs_per_solver") == number(
        f"tuning {task} trials") * number(f"tuning {task} epochs") \
        * number(f"tuning {task} splits")
    assert number(f"confirm {task} winner") + number(
        f"confirm {task} other") <= number(f"confirm {task} total")
    assert number(f"flagged {task}") <= number(f"tuning {task} solvers")


@pytest.mark.parametrize("spec, said", [
    ("const os.sep", "constants of"), ("tuning nowhere trials", "task"),
    ("tuning digits kind", "tuning key"), ("rank digits Nobody", "no solver"),
])
def test_facts_refuse_what_they_cannot_compute(spec, said):
    with pytest.raises(study_facts.FactError, match=said):
        study_facts.value(spec)


@pytest.mark.parametrize("n, text", [(1, "1st"), (2, "2nd"), (3, "3rd"),
                                     (9, "9th"), (11, "11th"), (22, "22nd")])
def test_ordinals(n, text):
    assert study_facts.ordinal(n) == text
