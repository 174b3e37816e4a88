"""Checks of command-line arguments that the commands of ``tools/`` and
``study/`` share, each ending the command through its parser (exit code
2) with the option named and what is allowed.

- ``refuse_inputs``: an output is never an input.  A command that writes
  a file from input files (a tuning record, a confirmation, a run
  config, results) refuses, before it reads or runs anything, an output
  path that names one of its inputs, or another of its outputs: writing
  it would replace that file.  Paths are compared resolved (``./R.json``
  and ``R.json``, symbolic links followed) and, where both files exist,
  by ``os.path.samefile`` (hard links).
- ``positive_number``: an argparse type for a budget, a finite number
  > 0 (``--budget -1``, ``nan`` or ``inf`` read nothing sensible).
"""
import argparse
import math
import os
from pathlib import Path


def same_file(a, b):
    """Whether paths ``a`` and ``b`` name one file (resolved through
    symbolic links; hard links too when both exist)."""
    a, b = Path(a), Path(b)
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def refuse_inputs(parser, outputs, inputs):
    """End the command through ``parser`` when an output of ``outputs``
    ({option: path, None when not given}) is the file of an input of
    ``inputs`` ({what it is: a path, a list of paths, or None}, e.g.
    ``{"the tuning record": "R.json", "--reuse": "old.json"}``) or of an
    earlier output."""
    given = [(what, path) for what, paths in inputs.items()
             for path in ([paths] if isinstance(paths, (str, os.PathLike))
                          else paths or ())
             if path is not None]
    written = []
    for option, path in outputs.items():
        if path is None:
            continue
        for what, source in given:
            if same_file(path, source):
                parser.error(f"{option} {path} is an input of this command "
                             f"({what} {source}); write elsewhere")
        for other, earlier in written:
            if same_file(path, earlier):
                parser.error(f"{option} {path} is also {other}: give each "
                             "output its own path")
        written.append((option, path))


def positive_number(option):
    """An argparse type: a finite number > 0, else an error naming
    ``option``."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(
                f"{option} must be a finite number > 0, got {text!r}")
        return value
    return parse
