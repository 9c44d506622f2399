"""`python -m mechsym.cli`: the `mechsym` command."""

import sys

from . import main

sys.exit(main())
