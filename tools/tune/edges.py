"""Winners on the edge of their range: a tuning whose best value of a
parameter lies at a bound of its range may have its optimum outside it.

A value is on an edge when it lies within ``EDGE`` of the range's width
(on the log scale the range is searched on) from a bound. An edge is
*flat* when a complete trial away from it (beyond ``AWAY`` of the width
from that bound) scored within ``FLAT`` (relative) of the best: the
criterion has stopped changing towards the bound (a saturating sigmoid
weight, steps past which nothing moves), so widening would not find a
better point. Each edge is reported with what to do: the ``--range`` that
widens it (``WIDEN`` decades beyond the bound, or an integer bound divided
or multiplied by 4), or the reason it cannot be widened (``LIMITS``: a
probability, a weight, at least one step). A study with an edge that is
neither flat nor a limit is not done: rerun it with the wider range on a
new storage (the range is part of a study's signature).
"""
import math

EDGE = 0.05  # share of the range's log width
AWAY = 0.1  # a trial this far from the bound tells whether the edge is flat
FLAT = 1e-3  # relative: the criterion no better at the edge than this
WIDEN = 2  # decades a float range is widened by
# bounds a parameter cannot pass: (low, high, what it is)
LIMITS = {
    "p": (0.0, 1.0, "a probability"),
    "rho": (0.0, 1.0, "a moving-average weight"),
    "rho_bar": (0.0, 1.0, "a moving-average weight"),
    "eta": (0.0, 1.0, "a STORM weight"),
    "storm_a": (0.0, 1.0, "a STORM weight"),
    "period": (1, math.inf, "a number of iterations"),
    "n_inner_steps": (1, math.inf, "a number of steps"),
    "n_shia_steps": (1, math.inf, "a number of steps"),
    "n_hia_steps": (1, math.inf, "a number of steps"),
    "n_z_steps": (1, math.inf, "a number of steps"),
}


def _position(value, rng):
    """Where ``value`` lies in ``rng`` on its log scale: 0 at the low
    bound, 1 at the high."""
    low, high = math.log(rng["low"]), math.log(rng["high"])
    if high == low:
        return 0.5
    return (math.log(value) - low) / (high - low)


def widened(name, rng, side):
    """``(low, high)`` of ``rng`` widened on ``side`` (``low``/``high``),
    or None when the bound is a limit of the parameter (``LIMITS``)."""
    limit_low, limit_high, _ = LIMITS.get(name, (0.0, math.inf, ""))
    low, high = rng["low"], rng["high"]
    if rng.get("integer"):
        if side == "low":
            new = max(limit_low, low // 4)
            return None if new >= low else (new, high)
        new = min(limit_high, high * 4)
        return None if new <= high else (low, new)
    if side == "low":
        new = max(low / 10 ** WIDEN, limit_low)
        return None if new >= low or new <= 0 else (new, high)
    new = min(high * 10 ** WIDEN, limit_high)
    return None if new <= high else (low, new)


def edges(parameters, space, trials=()):
    """The edges of a best configuration: one dict per parameter of
    ``space`` (``{name: {low, high, integer}}``) whose value in
    ``parameters`` lies within ``EDGE`` of a bound, with ``side``,
    ``widen`` (the ``--range`` text, or None), ``reason`` (why it cannot
    be widened, or None) and ``flat`` (``trials``, the ``(parameters,
    criterion)`` of the complete trials, hold one away from the bound
    within ``FLAT`` of the best)."""
    found = []
    best = min((c for _, c in trials), default=None)
    for name, rng in space.items():
        value = parameters.get(name)
        if not isinstance(value, (int, float)) or value <= 0:
            continue
        where = _position(value, rng)
        side = "low" if where <= EDGE else "high" if where >= 1 - EDGE \
            else None
        if side is None:
            continue
        wider = widened(name, rng, side)
        bound = rng[side]
        found.append(dict(
            parameter=name, value=value, side=side, bound=bound,
            widen=None if wider is None else
            f"{name}={wider[0]:g}:{wider[1]:g}",
            reason=None if wider is not None else
            f"{name} = {bound:g} is a limit ({LIMITS[name][2]})"
            if name in LIMITS else "the range cannot be widened",
            flat=best is not None and _flat(name, rng, side, trials, best)))
    return found


def _flat(name, rng, side, trials, best):
    """Whether a complete trial at least ``AWAY`` from the ``side`` bound
    of ``name`` scored within ``FLAT`` of ``best``."""
    away = [c for params, c in trials
            if isinstance(params.get(name), (int, float))
            and params[name] > 0
            and abs(_position(params[name], rng)
                    - (0.0 if side == "low" else 1.0)) >= AWAY]
    return bool(away) and min(away) - best <= FLAT * max(abs(best), 1e-300)


def edge_lines(solver, found):
    """Lines saying each edge and what to do."""
    lines = []
    for e in found:
        where = f"{e['parameter']} = {e['value']:g} at the {e['side']} " \
                f"edge of its range (bound {e['bound']:g})"
        if e.get("flat"):
            todo = (f"flat: a trial away from it scored within "
                    f"{FLAT:.1%} of the best")
        elif e["widen"]:
            todo = (f"widen it: --range {e['widen']} on a new --storage "
                    "(--continue-from the old one keeps its trials)")
        else:
            todo = f"cannot be widened: {e['reason']}"
        lines.append(f"  {solver}: {where}; {todo}")
    return lines


def widenable(edge):
    """Whether ``edge`` (an entry of ``edges``) can still be widened to
    some gain: it has a wider range and the trials are not flat there."""
    return bool(edge.get("widen")) and not edge.get("flat")


def done(found):
    """Whether no edge can still be widened to some gain: each is flat
    or a limit."""
    return not any(widenable(e) for e in found)
