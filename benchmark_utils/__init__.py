"""The numba core of the benchmark (see README "How it works")."""
from .numba_cache import prepare as _prepare

_prepare()
