"""Every algorithm of the benchmark: one table, their configurations and
their runs.

    config_of("SPABA", p=0.2, batch_size=8)        # a PnPBOConfig
    config_of("MRBO", sizes=(n, m), eta=0.3)       # a BaselineConfig
    config_of("Optuna", low=-5.0)                  # a SearchConfig
    run_of(problem, config, x0, y0, z0, seed)      # PnPBORun / BaselineRun /
                                                   # SearchRun
    run_seed(seed, random_state)                   # the run's seed
    solver_parameters("SPABA")                     # benchopt parameters

``table`` holds the table (what each solver fixes, its parameters and
defaults), ``pnpbo`` and ``baseline`` the configurations and runs of the
numba loops, ``search`` those of the Python-side black-box search,
``common`` what they share (steps, batches, counters), ``checks`` the
value checks.  Nothing here is compiled: editing it keeps numba's cache.
"""
from .baseline import BaselineConfig, BaselineRun  # noqa: F401
from .pnpbo import PnPBOConfig, PnPBORun  # noqa: F401
from .checks import check_integer  # noqa: F401
from .search import SearchConfig, SearchRun  # noqa: F401
from .table import (ALGORITHMS, BASELINE, BASELINES, PRESETS,  # noqa: F401
                    SEARCH, SEARCHES, SINGLE_LOOP, config_of, defaults,
                    entry, fields_of, period_of, run_of, run_seed,
                    solver_parameters)
