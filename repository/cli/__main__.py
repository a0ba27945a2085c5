"""`python -m repository.cli`: the same as the `elrepo` command."""
import sys

from repository.cli import main

sys.exit(main())
