import sys

from suitegen.frontends.cli import main

sys.exit(main())
