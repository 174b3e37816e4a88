"""Template: add your method and compare it, in one file.

Copy this file to ``solvers/<your_method>.py``, set ``name`` (MYBA here)
and the setting below, then compare::

    benchopt run . -s MYBA -s SPABA -s SOBA -d Simulated -d breast_cancer

benchopt does not list ``template_*`` files, so this one is never part of
a comparison unless named by its path::

    benchopt run . -s solvers/template_solver.py -d Simulated -n 10

``tests/test_templates.py`` keeps it working.  docs/solvers.md "A solver
of your own" says when to go further: an entry of the algorithms' table
(``benchmark_utils/algorithms/table.py``) fixes the setting under its
name; a new estimator, loop family or task is a change of the core
(docs/contributing.md "Recipes").
"""
from benchmark_utils.algorithms import solver_parameters
from benchmark_utils.solver_base import BilevelSolver


class Solver(BilevelSolver):
    """Template: SAGA on x with a moving average, PAGE on y, ZeroSARAH on z
    (a setting of Algorithm 1 of the PnPBO paper that no preset has).

    The solver runs the generic ``PnPBO`` entry of the table with its own
    defaults: everything else (the numba loop, sample counting, exact
    metrics, stopping rule, divergence and ``--timeout`` handling) is the
    benchmark's.  Its parameters are PnPBO's (docs/solvers.md), so
    ``-s "Template[estimator_y=saga,step_size=0.5]"`` works as for any
    solver.
    """
    # The name in benchopt's command line, results and plots.
    name = "Template"
    # The table's entry that runs it: "PnPBO" leaves every estimator free.
    algorithm = "PnPBO"
    # benchopt parameters: PnPBO's, with this method's setting as defaults
    # (estimators: sgd, saga, sarah, storm, page, zerosarah; ma: auto, on,
    # off; their parameters: p, rho, rho_bar, storm_a, period, R, ...).
    parameters = {
        **solver_parameters("PnPBO"),
        "estimator_x": ["saga"],
        "estimator_y": ["page"],
        "estimator_z": ["zerosarah"],
        "ma": ["on"],
    }
