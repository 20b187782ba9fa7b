"""The argument parser every ``agui`` command uses (standard library only, so ``agui doctor``
can use it in the broken environments it diagnoses)."""

from __future__ import annotations

import argparse
from typing import NoReturn

__all__ = ["EXIT_USAGE", "CommandParser"]

EXIT_USAGE = 2


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")
