"""The shape of the code a contributor reads (docs/contributing.md,
"Writing numba code"): no function of the package takes more than 12
parameters (points, outputs and coefficient groups go as tuples), except
the register-blocked kernels of ``tasks/batch_products/long_rows.py``,
whose eight rows are eight named arguments so that they stay in
registers."""
import ast
from pathlib import Path

from bench_helpers import ROOT

MAX_PARAMETERS = 12
EIGHT_ROW_KERNELS = {"_dots8x2", "_dots8x1", "_dots8_rows", "_outer8x2",
                     "_outer8x1", "_outer8_rows", "_sum8"}


def _functions(folder):
    for path in sorted(Path(folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                count = (len(args.posonlyargs) + len(args.args)
                         + len(args.kwonlyargs))
                yield path, node.name, count


def test_no_function_takes_more_than_twelve_parameters():
    root = Path(ROOT)
    long = [f"{path.relative_to(root)}:{name} ({count})"
            for path, name, count in _functions(root / "benchmark_utils")
            if count > MAX_PARAMETERS
            and not (path.name == "long_rows.py"
                     and name in EIGHT_ROW_KERNELS)]
    assert not long, long


def test_the_eight_row_kernels_are_where_the_exception_says():
    found = {name for path, name, count in
             _functions(Path(ROOT) / "benchmark_utils")
             if path.name == "long_rows.py" and count > MAX_PARAMETERS}
    assert found == EIGHT_ROW_KERNELS
