"""Results files of the result tools (``study.table``,
``tools.select``, ``tools.figures``): read, checked for the columns a tool
needs (a clear message naming the file and what is missing), and written
atomically (an output is never an input: ``tools.arguments``).
"""
import os
import tempfile
from pathlib import Path

import pandas as pd

# what every run of this benchmark's results has
RUN_COLUMNS = ("dataset_name", "solver_name", "idx_rep")


def read(path):
    """The results table of a benchopt run (.parquet or .csv)."""
    path = Path(path)
    if not path.is_file():
        raise SystemExit(f"no such results file: {path}")
    try:
        if path.suffix == ".csv":
            return pd.read_csv(path)
        return pd.read_parquet(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: not a readable results table "
                         f"({type(e).__name__}: {e})") from None


def check(df, path, needed, tool):
    """Raise ``SystemExit`` naming ``path`` when ``df`` is empty or lacks a
    column of ``needed``."""
    if df.empty:
        raise SystemExit(f"{path}: no results (0 rows); {tool} has nothing "
                         "to report")
    missing = [c for c in needed if c not in df.columns]
    if missing:
        have = ", ".join(sorted(df.columns)[:12])
        raise SystemExit(
            f"{path}: missing the column(s) {', '.join(missing)} that "
            f"{tool} needs: not results of this benchmark? (its columns: "
            f"{have}{', ...' if len(df.columns) > 12 else ''})")


def read_checked(path, needed, tool):
    df = read(path)
    check(df, path, needed, tool)
    return df


def write_text(path, text):
    """Write ``text`` to ``path`` atomically: a temporary file in the same
    folder, then ``os.replace`` (an interrupted write leaves the old file
    whole)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
