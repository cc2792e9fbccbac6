"""The file side of ``tracekit metamorphic``: spooling, the progress line and the output folder.

Cases are spooled, as typed Structs, to anonymous temporary files as they stream in, so the
report can list every case without holding them in memory. Transformed traces are written by
the workers themselves (tracekit/judging/metamorphic/staging.py) into a private temporary folder inside
``--output-dir``, which is moved into place as ``transformed/`` only after the verdict, together
with metamorphic.md and then metamorphic.json, each written atomically; nothing is written
through a symlink or over an existing output without ``--force``.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar

import msgspec

from tracekit.cli.common import fail
from tracekit.cli.sink import check_folder, make_folder, write_files
from tracekit.kernel.errors import Code

__all__ = ["OUTPUT_NAMES", "OutputDir", "Progress", "check_output_dir"]

S = TypeVar("S", bound=msgspec.Struct)

OUTPUT_NAMES = ("metamorphic.json", "metamorphic.md", "transformed")


class Progress:
    """The sweep's progress: traces done, cases run and failed, on a bar drawn only on a
    terminal and without --quiet (tracekit/cli/progress.py)."""

    def __init__(self, total: int, enabled: bool) -> None:
        from tracekit.cli.progress import bar

        self.shown = bar(total, "metamorphic", unit="trace") if enabled and total else None

    def update(self, done: int, cases: int, failed: int, final: bool = False) -> None:
        if self.shown is None:
            return
        self.shown.update(done - self.shown.n)
        self.shown.set_postfix_str(f"{cases} case(s), {failed} failed", refresh=final)

    def finish(self) -> None:
        if self.shown is not None:
            self.shown.close()


def check_output_dir(folder: Path, force: bool) -> None:
    """Refuse before any work: a symlinked or non-folder output, or existing outputs without
    --force."""
    check_folder(folder, OUTPUT_NAMES[:2], force)
    _check_transformed(folder / "transformed", force)


def _check_transformed(target: Path, force: bool) -> None:
    """The transformed/ folder: replaced only with --force, never through a symlink."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return
    if stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
        fail(Code.CLI_OUTPUT_UNSAFE)
    if not force:
        fail(Code.CLI_OUTPUT_EXISTS)


class OutputDir:
    """The study's output folder: a staging folder for transformed traces, then the files."""

    def __init__(self, folder: Path, force: bool) -> None:
        self.folder = folder
        self.force = force
        self.created = make_folder(folder)
        self.staging = Path(tempfile.mkdtemp(prefix=".tracekit-transformed-", dir=folder)).absolute()
        """Where the workers write the transformed traces (StudyConfig.transformed_dir)."""

    def finish(self, markdown: str, json_chunks: Iterable[str]) -> None:
        """Move the transformed traces into place, then write metamorphic.md and .json."""
        check_output_dir(self.folder, self.force)
        target = self.folder / "transformed"
        if target.exists():
            retired = Path(tempfile.mkdtemp(prefix=".tracekit-old-", dir=self.folder))
            os.replace(target, retired / "transformed")
            os.replace(self.staging, target)
            shutil.rmtree(retired)
        else:
            os.replace(self.staging, target)
        write_files(
            [
                (self.folder / "metamorphic.md", markdown.encode("utf-8")),
                (self.folder / "metamorphic.json", (c.encode("utf-8") for c in json_chunks)),
            ],
            self.force,
        )

    def abandon(self) -> None:
        """Remove the staging folder (and the output folder if this run created it empty)."""
        shutil.rmtree(self.staging, ignore_errors=True)
        if self.created and self.folder.is_dir() and not any(self.folder.iterdir()):
            self.folder.rmdir()
