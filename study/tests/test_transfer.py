"""study.transfer: the claims read apart on the comparisons tuned at a
variant of the task and on those no trial saw, each column on its own
comparisons only."""
from study import budget, transfer


def test_each_column_reads_its_own_comparisons_only(capsys):
    assert transfer.main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| claim | reading | n | tuned at")
    rows = {r.split(" | ")[0].lstrip("| "): r.split(" | ")
            for r in lines[2:] if r.startswith("| 6.")}
    # C_r = 0.2: two levels (or p5 and digits), 10 instances each; read
    # in the first two columns only
    spaba = next(v for k, v in rows.items()
                 if k.startswith("6.1 SPABA outperforms the other methods "
                                 "(hyper"))
    assert spaba[2] == "20" and spaba[5] == "—" and spaba[6] == "— |"
    cleaning = next(v for k, v in rows.items()
                    if k.startswith("6.1 SPABA outperforms the other "
                                    "methods (cleaning"))
    assert cleaning[2] == "10" and cleaning[3] == "—"


def test_a_verdict_that_differs_between_columns_is_marked():
    frames = budget.stored_results()
    same = budget.verdict_columns([("a", frames, {"digits"}),
                                   ("b", frames, {"digits"})])
    assert same[1] == [] and "(moves)" not in same[0]
    two = budget.verdict_columns([("a", frames, {"fashion_p5", "digits"}),
                                  ("b", frames, {"fashion_p7",
                                                 "fashion_p9"})])
    assert any("SPABA ahead (C_r = 0.2)" in name for name in two[1])
