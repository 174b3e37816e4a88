"""Deprecated alias: the speed script is now ``tools/bench`` (outside the
core), run as ``python -m tools.bench`` with the same options.

``python -m benchmark_utils.bench ...`` prints one line of warning and
forwards its arguments there.
"""
import sys

if __name__ == "__main__":
    print("benchmark_utils.bench is deprecated: run `python -m tools.bench` "
          "(same options)", file=sys.stderr, flush=True)
    from tools.bench.cli import main
    sys.exit(main())
