"""``python3 -m gpuvec.bench``: see :mod:`gpuvec.bench`."""

import sys

from gpuvec.bench._cli import main

sys.exit(main())
