"""Exceptions raised by the data loaders."""
import os


class DataNotFoundError(FileNotFoundError):
    """No usable copy of a data set: no cache, no local file, no download.

    The message names the ``data_paths`` key of ``config.yml`` to set and the
    file names expected in that folder.
    """


class DataPermissionError(PermissionError):
    """A data file exists but this process may not read it.

    The message names the file and says to fix its permissions or ask its
    owner (the file is not reported corrupt: it was not read).
    """


class DataFormatError(ValueError):
    """A data file exists but is corrupt or has the wrong shape.

    The message names the file and what is wrong with it.
    """


def not_found_message(name, key, files, looked_in=(), reason=None,
                      extra=None):
    """The text of a :class:`DataNotFoundError`.

    name: the data set, key: its ``data_paths`` key, files: the file names
    expected in that folder, looked_in: folders searched, reason: why the
    download failed (an exception or a string), extra: a last hint.
    """
    files = ", ".join(f"'{f}'" for f in files)
    lines = [f"{name}: no cached copy, no local file and no download."]
    looked_in = [str(p) if os.path.isdir(p) else f"{p} (no such folder)"
                 for p in looked_in]
    if looked_in:
        lines.append("Looked for local files in: " + ", ".join(looked_in))
    if reason is None:
        lines.append("Download: not attempted.")
    else:
        if isinstance(reason, BaseException):
            reason = f"{type(reason).__name__}: {reason}"
        lines.append(f"Download failed: {reason}")
    lines += [
        f"To run offline, put {files} (plain, .gz or .bz2) in one folder and "
        f"set the `data_paths` key '{key}' in the benchmark's config.yml:",
        "    data_paths:",
        f"      {key}: /path/to/that/folder",
        "then run `benchopt prepare .` once (or just `benchopt run .`).",
    ]
    if extra:
        lines.append(extra)
    return "\n".join(lines)
