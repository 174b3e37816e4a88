"""Markers: values whose numba type names them, for selection at compile
time.

A marker is the one member ``CODE`` of an ``IntEnum`` class of its own.
numba types it as an ``IntEnumMember`` of that class, so a function that
receives it (in a record) is compiled once per marker, and an ``overload``
picks the marker's code at compile time: a task's kernels
(``tasks.dispatch``), a baseline family's iteration
(``families.loop``).  A run then compiles its own task and family
only; a run-time code would compile every branch in every run.
"""
import sys
from enum import IntEnum


def make_markers(names, module):
    """The markers of ``names``, the one of ``names[code]`` with value
    ``code``.  Each class is an attribute of ``module`` (a module name)
    under its name: numba's cache pickles a marker's type by reference."""
    namespace = vars(sys.modules[module])
    markers = []
    for code, name in enumerate(names):
        cls = IntEnum(name, {"CODE": code}, module=module, qualname=name)
        namespace[name] = cls
        markers.append(cls.CODE)
    return tuple(markers)


def code_of(marker_type):
    """The code of a marker's numba type (at compile time)."""
    cls = getattr(marker_type, "instance_class", None)
    if cls is None:
        raise TypeError(f"expected a marker (jit.markers), got {marker_type}")
    return int(next(iter(cls)))
