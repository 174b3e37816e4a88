"""The baselines' loop families (docs/baselines.md §3): one module per
family, the compiled loop that runs them (``loop``), and the protocol a
family follows (``Family``).

A family module holds

* its outer iteration, compiled (``iteration(model, levels, iterates,
  work, cfg, stream, k)``), built from the shared blocks of
  ``core/solves.py`` and ``core/oracles.py``;
* its own parameters, as ``Parameter`` entries (default, check, meaning)
  keyed by their ``BaselineConfig`` field: the configuration gets one
  field per declared parameter and checks it as declared;
* the records of its own numbers and state (``typing.NamedTuple``):
  ``cfg.own`` and ``work.own`` in the compiled iteration.  ``Params``
  names its fields as the configuration does (a value keeps its name
  from the solver's parameter to the kernel) and is filled from the
  configuration, each value converted to its field's type; ``State`` is
  built by the family's ``state(config, dims, y0)``;
* a ``Family`` value naming all of this and the algorithms it runs
  (algorithm: inverse-Hessian solver, ``core/solves.py``).

The shared records (``core/records.BConfig`` and ``BWork``) keep only
what every family reads, so a new family never edits them: the single
loop's compiled code and the other families' stay in numba's cache.
``loop.FAMILIES`` is the table of families (a family's code is its place
there).  Nothing here is compiled.
"""
from dataclasses import dataclass
from typing import Callable, NamedTuple


class Parameter(NamedTuple):
    """A family's own parameter: its default, its check (the name of a
    ``check_<name>`` of ``algorithms/checks.py``, or a tuple ``(name,
    *arguments)``) and its meaning, with the paper's symbol."""
    default: object
    check: object
    meaning: str


class Nothing(NamedTuple):
    """The record of a family without numbers or state of its own."""


def nothing(*_):
    """``state`` of a family with none of its own."""
    return Nothing()


class Dims(NamedTuple):
    """What a family's state is sized by: dim x, dim y and the rows of a
    batch (0: full batches)."""
    dx: int
    dy: int
    batch: int


@dataclass(frozen=True)
class Family:
    """A loop family (see the module docstring).  ``marker``: the name of
    its numba marker type; ``label``: what the user is told while it
    compiles; ``params``: its ``Params`` record class; ``finite``: a
    compiled check of its own state's iterates (``own_finite(work.own)``;
    None: the state holds none)."""
    marker: str
    label: str
    iteration: Callable
    algorithms: dict
    parameters: dict
    params: type = Nothing
    state: Callable = nothing
    finite: Callable = None

    def own_params(self, config):
        """The ``params`` record of ``config``: its fields of the same
        names, as float, int or bool."""
        return self.params(**{
            name: kind(getattr(config, name))
            for name, kind in self.params.__annotations__.items()})
