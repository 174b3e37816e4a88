"""A tuning's JSON files, read as stored: plain, or xz-compressed when
the name ends in ``.xz`` (the study keeps its records so,
``report.write_record`` writes them so)."""
import json
import lzma


def read_json(path):
    """The JSON value of ``path`` (through xz for ``*.xz``)."""
    opener = lzma.open if str(path).endswith(".xz") else open
    with opener(path, "rt") as handle:
        return json.load(handle)
