"""Frozen-app entry point: the same command line as ``python -m suzent_desktop``."""

import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch a price table at start

from suzent_desktop.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
