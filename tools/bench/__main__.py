"""``python -m tools.bench``: see ``tools/bench/__init__.py``."""
import sys

from .cli import main

sys.exit(main())
