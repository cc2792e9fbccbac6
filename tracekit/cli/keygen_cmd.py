"""``tracekit keygen``: an Ed25519 key pair for sealing bundles and signing attestations
(docs/bundle-format.md; docs/cli.md, "tracekit keygen")."""

from __future__ import annotations

from pathlib import Path

import typer

from tracekit.cli.bundle_io import report_action
from tracekit.cli.common import Format, say
from tracekit.cli.options import FORCE, FORMAT, QUIET, Command
from tracekit.cli.sink import check_target, write_files


def keygen(
    output: str = typer.Option(
        ..., "--output", "-o", metavar="NAME", help="Key name: writes NAME.key (mode 0600) and NAME.pub."
    ),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Make an Ed25519 key pair for sealing bundles."""
    from tracekit.bundle import keys
    from tracekit.report.bundle_render import KeygenReport

    # `-o x.key` and `-o x.pub` name the pair x, as `-o x` does.
    stem = output.removesuffix(".key").removesuffix(".pub")
    private_path, public_path = Path(stem + ".key"), Path(stem + ".pub")
    check_target(private_path, force)
    check_target(public_path, force)
    seed, public = keys.generate()
    # Both files staged, then moved as one unit; the private key is 0600 from its creation.
    write_files(
        [(private_path, keys.private_pem(seed)), (public_path, keys.public_pem(public))],
        force,
        modes={private_path: 0o600},
    )
    kid = keys.keyid(public)
    report_action("keygen", KeygenReport(kid, str(private_path), str(public_path)), format)
    say(quiet, "keygen", f"key {kid}")


def register(app: typer.Typer) -> None:
    """Add keygen to the app."""
    app.command("keygen", cls=Command)(keygen)
