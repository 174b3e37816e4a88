"""The inputs of the commands that run a tuning record's trials again
(``holdout``, ``confirm``): one tuning record to run, or, with
``--show``, the JSONs such a command wrote, to tabulate.  Bad input ends
the command through its parser, naming what is wrong."""
import lzma

from tools.tune.record_file import read_json


def read(p, paths, show, written_key):
    """``(record, loaded)``: the one tuning record of ``paths`` (None
    with ``show``), and every file read.  With ``show`` each file must
    be one this command wrote (it has ``solvers`` and ``written_key``)."""
    loaded = [read_one(p, path, "the input" if show else "the record",
                       "expected the JSON this command writes (--out)"
                       if show else "expected a tuning's JSON record")
              for path in paths]
    if show:
        if any(not isinstance(r, dict) or "solvers" not in r
               or written_key not in r for r in loaded):
            p.error("--show reads the JSONs this command writes (--out)")
        return None, loaded
    if len(loaded) != 1:
        p.error("give one tuning record (several with --show only)")
    record = loaded[0]
    if not isinstance(record, dict) or "budget" not in record \
            or "solvers" not in record:
        p.error(f"{paths[0]}: not a tuning record")
    return record, loaded


def read_one(p, path, what, expected):
    """The JSON value of ``path`` (``what``: the option or argument that
    gave it), or the command ends through ``p`` naming the file, why it
    cannot be read and what was ``expected``."""
    try:
        return read_json(path)
    except OSError as err:
        p.error(f"{what} {path}: cannot be read ({err.strerror or err})")
    except (ValueError, EOFError, lzma.LZMAError) as err:
        # a truncated or damaged file (JSON, or its xz compression)
        p.error(f"{what} {path}: not a readable JSON file ({err}); "
                f"{expected}")


def solvers(p, record, given, default):
    """The solvers of ``--solvers`` (``given``, comma-separated), else
    ``default``; each must be one of the record's."""
    chosen = (default if not given else
              [s.strip() for s in given.split(",") if s.strip()])
    unknown = [s for s in chosen if s not in record["solvers"]]
    if unknown:
        p.error(f"--solvers: {unknown} not in the record (it has "
                f"{sorted(record['solvers'])})")
    return chosen
