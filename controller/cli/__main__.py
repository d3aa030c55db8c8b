"""``python -m controller.cli``: the same as the ``toptable`` command."""

import sys

from controller.cli.main import main

sys.exit(main())
