"""``python -m study``: the study's commands, one line each."""
import sys

from tools.commands import main

COMMANDS = {
    "run": "run the study of a specification (study/study.yml), "
           "resumable: tune, check, confirm, compare, verdicts",
    "add": "put a solver into the stored study: tuned with the same "
           "work, confirmed, compared on the stored instances",
    "budget": "the protocol as if each tuning had stopped at a share of "
              "its work: those winners confirmed and compared",
    "untuned": "the untuned track: every solver at its defaults on the "
               "stored instances, its verdicts beside the tuned ones",
    "transfer": "each claim read apart on the variants its winners were "
                "tuned on and on those no trial saw",
    "figure_file": "a PNG rewritten with a palette of 256 colours (the "
                   "study's figures are kept small)",
    "verdicts": "each claim of a claims file decided by paired tests "
                "over independent instances",
    "table": "a comparison's tables at an epoch budget and at the end",
    "page": "check or rewrite the generated blocks and inline facts of "
            "a study page; name any number they do not print",
    "summary": "each claim on each reading: its effect, interval and "
               "verdict, as a table or a figure",
    "facts": "the named numbers a study page's prose states, computed "
             "from the stored results",
    "tunings": "each task's final tuning: its work, widened ranges and "
               "command",
    "html": "the study's pages as a static site that opens offline",
    "holdout": "does a tuning's late improvement hold on held-out splits?",
    "confirm": "is a tuning's winner stable on held-out splits?",
    "ablation": "a run config with one parameter changed, paired with "
                "the original",
    "reference_table": "reference results of a dataset's splits",
    "cleaning_gain": "where hyper-cleaning matters: oracle weights' gain "
                     "over C_r and p~",
    "scores": "one overall score per solver with its uncertainty: IQM of "
              "normalized scores, P(improvement), profile areas",
    "anytime": "anytime profiles: the share of (instance, target) pairs "
               "reached against the work, over many targets",
    "sensitivity": "how far each tuning winner's parameters can move and "
                   "stay within 5 % of its gain",
    "budget_curve": "each task's winners at 1/4, 1/2 and the full tuning "
                    "budget, from the stored trials",
}

if __name__ == "__main__":
    sys.exit(main("study", COMMANDS))
