"""The study: the PnPBO paper's claims under one protocol, on the tasks
that run offline.

The benchmark (``objective.py``, ``solvers/``, ``datasets/``,
``benchmark_utils/``) and its tools (``tools/``) are what a researcher
installs; this package is what the study concludes from them.  It
depends on ``benchmark_utils`` and ``tools``, never the reverse.

``python -m study`` lists its commands.  Stored results live in
``study/data/``, the run configs of the tuned winners in
``study/configs/``, the claims in ``study/claims.yml``.
"""
