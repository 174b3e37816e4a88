"""The numba core of the benchmark (see README "How it works")."""
from .numba_cache import ensure_fresh as _ensure_fresh

_ensure_fresh()
