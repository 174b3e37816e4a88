"""Configuration and state of a baseline run (docs/baselines.md), driven
from Python like ``PnPBORun``.

``BaselineConfig`` holds and validates one baseline's parameters with
errors that name the parameter and its allowed values: the shared fields
of ``BaselineSteps`` and one field per parameter a loop family declares
(``families/``; the class is made from their declarations).
``BaselineRun`` owns every array of the run (the records of
``core.records``, its family's state among them, allocated once) and
advances it with ``run(n_iter)`` or ``run_until(target, max_iter)`` on
``families.loop.run_baseline``.

Steps are ``Steps``' (``gamma = step_size / z_ratio`` is the Neumann/HIA
scale and the linear-system step: constant, except FSLA's z step, which
decays with ``exponent_z``).
"""
from dataclasses import dataclass, field, make_dataclass

from ..core import records
from ..core.solves import HIA
from ..families import Dims
from ..families.loop import FAMILIES as FAMILY_TABLE
from ..families.loop import family_marker, run_baseline
from . import checks
from .checks import check_choice, check_integer
from .common import FULL, RunStatus, Steps, batch_rows

# algorithm: (loop family's code, inverse-Hessian solver), from the
# families' declarations
FAMILIES = {name: (code, solver)
            for code, family in enumerate(FAMILY_TABLE)
            for name, solver in family.algorithms.items()}
# The algorithms that may run on full batches (batch_size="full", the
# setting of benchmark_bilevel, which runs them so).
FULL_BATCH = ("BOME", "PZOBO")


def _own_parameters(table):
    """{field: (default, [families declaring it])} of the families'
    own parameters; a field two families declare has one default."""
    out = {}
    for family in table:
        for name, parameter in family.parameters.items():
            default, owners = out.setdefault(name, (parameter.default, []))
            if default != parameter.default:
                raise ValueError(
                    f"the {family.label} family declares {name}="
                    f"{parameter.default!r}, another {default!r}: a "
                    f"parameter has one default")
            owners.append(family)
    return out


OWN_PARAMETERS = _own_parameters(FAMILY_TABLE)


def run_check(name, value, check):
    """Apply a ``Parameter.check`` (``"positive"``, ``("integer", 1)``,
    ...: ``checks.check_<kind>(name, value, *arguments)``)."""
    kind, *arguments = (check,) if isinstance(check, str) else check
    getattr(checks, f"check_{kind}")(name, value, *arguments)


@dataclass
class BaselineSteps(Steps):
    """What every baseline run has: the steps of ``Steps``, the algorithm,
    ``n_inner_steps`` (T: y steps of stocBiO/AmIGO/BSA, SARAH corrections
    after the x step of VRBO, inner steps of F2SA, unrolled steps of ITD,
    BOME's and PZOBO's steps; TTSA takes one) and ``Q`` (the Neumann or
    HIA length).  ``batch_size="full"`` (BOME, PZOBO): every batch is its
    whole level."""
    algorithm: str = "stocBiO"
    n_inner_steps: int = 10
    Q: int = 10

    def family(self):
        """The ``Family`` of this configuration's algorithm."""
        return FAMILY_TABLE[FAMILIES[self.algorithm][0]]

    def validate(self, n=None, m=None):
        """Check every field: the shared ones, then each family's own
        parameter as its family declares it (a field several families
        declare: as the run's family does, or as every declaring family
        does when the run's family does not read it)."""
        check_choice("algorithm", self.algorithm, FAMILIES)
        self.validate_steps(n, m)
        mine = self.family().parameters
        for name, (_, owners) in OWN_PARAMETERS.items():
            declared = ([mine[name]] if name in mine
                        else [f.parameters[name] for f in owners])
            for parameter in declared:
                run_check(name, getattr(self, name), parameter.check)
        check_integer("n_inner_steps", self.n_inner_steps, 1)
        _, solver = FAMILIES[self.algorithm]
        # HIA draws p uniform on {0..Q-1}; a Neumann series may have 0 terms
        check_integer("Q", self.Q, 1 if solver == HIA else 0)
        return self

    def check_batch_size(self, n=None, m=None):
        """An integer in [1, min(n, m)], or ``"full"`` for ``FULL_BATCH``."""
        if self.batch_size == FULL and self.algorithm in FULL_BATCH:
            return
        if self.algorithm in FULL_BATCH and isinstance(self.batch_size, str):
            raise ValueError(
                f"batch_size must be an integer >= 1 or 'full' (every "
                f"sample), got {self.batch_size!r}")
        if self.batch_size == FULL:
            raise ValueError(
                f"batch_size must be an integer >= 1, got 'full' (full "
                f"batches: {', '.join(FULL_BATCH)} only)")
        super().check_batch_size(n, m)

    def numeric(self, cross_in_data=True, batch=None):
        """The ``records.BConfig`` of this (validated) configuration
        (``cross_in_data``: the task's ``TaskSpec`` field; ``batch``: the
        run's rows of a batch, ``batch_rows(batch_size)`` when None), with
        its family's own numbers (``Family.own_params``)."""
        code, solver = FAMILIES[self.algorithm]
        T = 1 if self.algorithm == "TTSA" else int(self.n_inner_steps)
        if batch is None:
            batch = batch_rows(self.batch_size)
        return records.BConfig(
            family=family_marker(code), solver=solver,
            batch=batch, alpha=float(self.alpha),
            beta=float(self.beta), gamma=float(self.gamma),
            exp_x=float(self.exponent_x), exp_y=float(self.exponent_y),
            exp_z=float(self.exponent_z), n_inner=T, Q=int(self.Q),
            blocks=bool(self.sampling == "blocks"),
            cross=bool(cross_in_data), own=self.family().own_params(self))


def _doc():
    lines = [
        "Everything that defines one baseline run (docs/baselines.md §3):",
        "the fields of ``BaselineSteps`` and the loop families' own",
        "parameters (declared in ``families/``):", ""]
    for name, (default, owners) in OWN_PARAMETERS.items():
        meanings = {}  # meaning -> the families that give it
        for f in owners:
            meanings.setdefault(f.parameters[name].meaning, []).append(
                f.label)
        lines.append(f"``{name}`` (default {default!r}): " + "; ".join(
            f"{', '.join(labels)}: {meaning}"
            for meaning, labels in meanings.items()))
    return "\n".join(lines)


BaselineConfig = make_dataclass(
    "BaselineConfig",
    [(name, object, field(default=default))
     for name, (default, _) in OWN_PARAMETERS.items()],
    bases=(BaselineSteps,),
    namespace={"__doc__": _doc(), "__module__": __name__})


class BaselineRun(RunStatus):
    """State of one baseline run on a ``Problem``, advanced in place.

    ``x0, y0, z0`` are copied; the previous point starts at the starting
    point (never at zero); the generator is seeded from ``seed`` and, under
    ``sampling="blocks"``, draws the two orders first (as ``PnPBORun``).
    The family's own state starts as its ``Family.state`` makes it (F2SA's
    penalised copy at y0 and its multiplier at ``lmbda0``; ITD keeps y0
    and room for its inner loop's iterates and batches).
    """

    def __init__(self, problem, config, x0, y0, z0, seed):
        self._start(problem, config, (x0, y0, z0), seed, "one")
        dims = Dims(problem.dim_x, problem.dim_y, self.batch)
        own = config.family().state(config, dims, self.iterates.y)
        self.work = records.make_bwork(dims.dx, dims.dy, dims.batch, own)
        self.cfg = config.numeric(problem.spec.cross_in_data, self.batch)

    def _loop(self, n_iter, target):
        """The compiled loop: up to the first outer iteration whose sample
        count reaches ``target``, at most ``n_iter`` outer iterations."""
        self._call(run_baseline, (
            self.model, self.levels, self.iterates, self.work, self.cfg,
            self.stream, int(n_iter), int(target)))
