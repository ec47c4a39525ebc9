"""The `tracediff` command installed by the wheel: the Rust command line, in this process."""

import sys


def main() -> None:
    from . import _native

    sys.exit(_native.main(sys.argv))
