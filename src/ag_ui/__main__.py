"""``python -m ag_ui`` runs the ``agui`` command line."""

import sys

from ag_ui.cli import main

sys.exit(main())
