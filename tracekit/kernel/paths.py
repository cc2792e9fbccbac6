"""Path hygiene: a recorded path must already be in normalised, repository-relative form.

Upstream normalises with PurePosixPath and so accepts ``.``, ``./x``, ``a//b`` and ``x/``, which
let ``./secrets/k`` slip past a ``secrets/**`` pattern during replay. tracekit requires
the stored value to *be* its normalised form (docs/trace-format.md step 5).
"""

from __future__ import annotations

import re

from tracekit.kernel.errors import Code

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A sufficient condition for "clean": components of word characters, '.', '+', '@' and '-' that
# do not start with '.', so no '.', '..', empty, drive, UNC, backslash or control character can
# occur. Everything else gets the ordered rules below.
_PLAIN = re.compile(r"[\w+@-][\w.+@-]*(?:/[\w+@-][\w.+@-]*)*\Z", re.ASCII)
_DRIVE = re.compile(r"^[A-Za-z]:")


def path_problem(path: str) -> Code | None:
    """Return the code of the first rule ``path`` breaks, or None for a clean relative path.

    Rules, in order: non-empty; no control characters or NUL; not UNC (``//host``, ``\\\\host``);
    no drive letter; no backslash; not absolute; no ``..`` component; no ``.`` or empty component
    (so no ``./x``, ``a//b`` or trailing ``/``).
    """
    if _PLAIN.match(path):
        return None
    if not path:
        return Code.PATH_EMPTY
    if _CONTROL.search(path):
        return Code.PATH_CONTROL_CHARACTER
    if path.startswith(("//", "\\\\")):
        return Code.PATH_UNC
    if _DRIVE.match(path):
        return Code.PATH_DRIVE_LETTER
    if "\\" in path:
        return Code.PATH_BACKSLASH
    if path.startswith("/"):
        return Code.PATH_ABSOLUTE
    parts = path.split("/")
    if ".." in parts:
        return Code.PATH_PARENT_REFERENCE
    if "." in parts or "" in parts:
        return Code.PATH_NOT_NORMALISED
    return None


def target_problem(target: str) -> Code | None:
    """Rules for a symlink target: relative text without control characters.

    ``..`` is legitimate inside a link target, and ``[ABSOLUTE_TARGET]`` is upstream's marker for
    an absolute target it chose not to record.
    """
    if target == "[ABSOLUTE_TARGET]":
        return None
    code = path_problem(target)
    if code in (Code.PATH_PARENT_REFERENCE,):
        return None
    return code
