"""study.reference_table: the references of the split a benchopt run
draws, as the results page's reference table prints them."""
import pytest

from benchmark_utils.data import small
from benchmark_utils.metrics import make_metrics


def test_reference_table_draws_the_split_of_benchopt_run(capsys):
    """study.reference_table on digits, --seed 3, repetition 1: the split
    of that run (the dataset's seed from benchopt's run context) and its
    references."""
    from benchopt.utils.run_context import RunContext
    from study import reference_table
    seed = RunContext(base_seed="3", repetition=1).get_seed(
        "Dataset", use_repetition=True)
    expected = make_metrics(small.digits_task(ratio=0.5, seed=seed))
    got = reference_table.split_references("digits", 3, 1)
    for key, value in expected.references().items():
        assert got[key] == pytest.approx(value, rel=1e-9)
    # the runs start near the centre of the draw, not at it
    assert got["start_value"] != got["ref_x0_value"]
    assert got["start_value"] == pytest.approx(got["ref_x0_value"],
                                               rel=0.05)
    reference_table.main(["--dataset", "digits", "--seed", "3",
                          "--repetitions", "2"])
    line = next(ln for ln in capsys.readouterr().out.splitlines()
                if ln.startswith("| oracle weights (clean labels) |"))
    # repetition 1's cells, after repetition 0's
    assert line.split(" | ")[3:5] == [
        f"{got['ref_weights_oracle_value']:.3f}",
        f"{100 * got['ref_weights_oracle_test_error']:.2f}"]
