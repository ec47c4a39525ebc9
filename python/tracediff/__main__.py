"""`python -m tracediff …`: the command line, as the `tracediff` command runs it."""

import sys

from ._native import main

if __name__ == "__main__":
    sys.exit(main(["tracediff", *sys.argv[1:]]))
