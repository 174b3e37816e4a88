"""The verdicts on what was not tuned on: each claim read on the
comparisons whose winners were tuned on that variant of the task (on
splits of their own) and, apart, on the variants no trial saw.

    python -m study.transfer

Fashion-MNIST's winners were tuned at p~ = 0.5 (the dataset's default
level), digits' on digits: the comparisons at p~ = 0.7 and 0.9 run the
Fashion-MNIST winners at levels they were not tuned at.  At C_r = 0.02
the winners tuned there stand beside the C_r = 0.2 winners transferred
to it (``fashion_l2_p9_transferred``).  Each column reads the claims on
its comparisons only (Holm's correction over the claims read there).
"""
import argparse

from study import budget

# (the column's head, its comparisons)
COLUMNS = (("tuned at: p̃ = 0.5 and digits", ("fashion_p5", "digits")),
           ("not tuned at: p̃ = 0.7 and 0.9", ("fashion_p7", "fashion_p9")),
           ("C_r = 0.02, tuned there", ("fashion_l2_p9",)),
           ("C_r = 0.02, C_r = 0.2's winners", ("fashion_l2_p9_transferred",)))


def report():
    """The claims of the hyper-cleaning task read on each column's
    comparisons."""
    frames = budget.stored_results()
    text, moved, total = budget.verdict_columns(
        [(head, frames, set(names)) for head, names in COLUMNS])
    return "\n".join([text, "", f"{len(moved)} of {total} verdicts read "
                      "here differ between the columns. " + budget.LEGEND])


def main(argv=None):
    argparse.ArgumentParser(prog="python -m study.transfer",
                            description=__doc__.split("\n\n")[0]
                            ).parse_args(argv)
    print(report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
