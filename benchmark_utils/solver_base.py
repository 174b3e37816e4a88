"""The one base class of every solver: an entry of the algorithms' table
+ benchopt plumbing.

A solver file states its name, its paper, ``algorithm`` (its key in
``algorithms.ALGORITHMS``) and ``parameters = solver_parameters(name)``;
what it fixes and its defaults live in that entry, everything else --
the configuration (``algorithms.config_of``), compilation
(``engine.compile_for``), the callback loop on the Objective's grid of
sample evaluations (``sample_grid``), divergence and deadline handling --
lives here, once.
"""
from benchopt import BaseSolver

from . import progress, tuned
from .algorithms import config_of, run_of, run_seed
from .algorithms.table import entry
from .engine import compile_for, feature_dtype
from .precompile import compile_for_run
from .sample_grid import EVAL_EPOCHS, check_eval_epochs, grid_target


def _deadline_check(callback):
    """``time_is_up`` of the run's stopping criterion (benchopt's callback
    keeps it as ``callback.stopping_criterion``), or a check that is never
    true when the criterion has none."""
    criterion = getattr(callback, "stopping_criterion", None)
    check = getattr(criterion, "time_is_up", None)
    return check if callable(check) else (lambda: False)


def _evaluate_at_next_call(callback):
    """Make benchopt's callback evaluate the iterate at its next call.

    benchopt's ``_Callback`` evaluates when its call count ``it`` reaches
    ``next_stopval``; the evaluation then checks ``--timeout`` and ends the
    run with status ``timeout`` and the right iteration count.
    """
    if isinstance(getattr(callback, "it", None), int) \
            and hasattr(callback, "next_stopval"):
        callback.next_stopval = min(callback.next_stopval, callback.it)


class BilevelSolver(BaseSolver):
    """Runs the algorithm ``algorithm`` (a key of
    ``algorithms.ALGORITHMS``) with the solver's parameters."""

    sampling_strategy = "callback"
    requirements = ["pip::numba>=0.59"]
    test_config = {"dataset": {"name": "Simulated"}, "batch_size": 16}
    algorithm = None
    references = []
    dataset = None  # the dataset's key in tuned.py, from set_objective
    _sizes = None  # (n, m) of the problem, once it is known

    def config(self):
        """The validated configuration of this solver instance: its
        parameter values (each ``'tuned'`` one replaced by its tuned value
        on this dataset, ``tuned.TUNABLE``) through
        ``algorithms.config_of``, with the problem's sizes once known
        (VRBO's period from ``period_frac``, ``batch_size`` bounded)."""
        parameters = getattr(self, "parameters", {})
        values = {key: getattr(self, key) for key in parameters}
        defaults = {key: v[0] for key, v in parameters.items()}
        values = tuned.resolve(values, self.dataset, self.name, defaults)
        return config_of(self.algorithm, sizes=self._sizes, **values)

    def set_objective(self, problem, x0, y0, z0, seed, dataset=None,
                      eval_epochs=EVAL_EPOCHS):
        # the Objective's grid: u epochs between two callback calls
        self.eval_epochs = check_eval_epochs(eval_epochs)
        self.dataset = dataset  # key of step_size=tuned (tuned.py)
        self._sizes = (problem.n, problem.m)
        self.cfg = self.config()
        # random_state (an int) replaces the Objective's seed of the
        # batches; the starting point stays the Objective's
        self.problem = problem
        self.seed = run_seed(seed, getattr(self, "random_state", None))
        self.x0, self.y0, self.z0 = x0, y0, z0
        self.state = None  # blocks: one permuted copy of the rows at a time
        # Built here, off the clock (under sampling=blocks it copies the
        # rows in the run's order: 0.1 s on covtype); run() uses it once.
        self.state = run_of(problem, self.cfg, x0, y0, z0, self.seed)
        # untimed here (benchopt times warm_up; engine.compile_for); under
        # benchopt run, every kernel of the run compiles ahead, in parallel
        compile_for_run(self.algorithm, feature_dtype(problem), problem.task)

    def warm_up(self):
        """Compile (or load from numba's cache) what this solver runs;
        already done in ``set_objective``, so a no-op in a benchopt run."""
        problem = getattr(self, "problem", None)
        if problem is None:  # compile_for's default task, float64
            compile_for(self.algorithm)
        else:
            compile_for(self.algorithm, feature_dtype(problem), problem.task)

    def run(self, callback):
        """benchopt's callback loop: after callback call c, advance to the
        first iteration end with ``c * eval_epochs * (n + m)`` sample
        evaluations (``sample_grid.grid_target``; nothing when the run is
        already there, and the same point is evaluated again)."""
        if self.state is None or self.state.iteration > 0:
            # a second run() of the same setting starts afresh
            self.state = None
            self.state = run_of(self.problem, self.cfg, self.x0, self.y0,
                                self.z0, self.seed)
        time_is_up = _deadline_check(callback)
        calls = 0
        late = False
        while callback():
            if self.state.diverged:
                # The next evaluation reports the non-finite iterate
                # (diverged = 1) and the run ends; see stopping.py.
                break
            if late:
                break  # benchopt did not stop at the requested evaluation
            calls += 1
            # the deadline is also read within a step of the grid, between
            # calls of the compiled loop of about 0.2 s (RunStatus.run_until)
            # or between iterations of a Python-side run: a step as long as
            # eval_epochs asks (1e9 epochs) ends at --timeout as well
            self.state.run_until(self.grid_target(calls),
                                 time_is_up=time_is_up)
            if time_is_up():
                # --timeout has passed: have this point evaluated, where
                # benchopt's timeout check ends the run, rather than the
                # next scheduled evaluation (x1.5 the calls done so far).
                late = True
                _evaluate_at_next_call(callback)
        progress.run_ended()  # one line per run of `benchopt run`

    def grid_target(self, call):
        """The sample count of callback call ``call`` on the Objective's
        grid (``sample_grid.grid_target``)."""
        n, m = self._sizes
        return grid_target(call, self.eval_epochs, n, m)

    def get_result(self):
        # z_role: whether the reported z tracks z*(x) (metrics.lost_inner)
        return self.state.result() | dict(
            z_role=entry(self.algorithm).z_role)
