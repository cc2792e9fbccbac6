"""The one file a metamorphic worker writes: a transformed trace into the study's staging folder.

``metamorphic --output-dir`` creates a private staging folder inside the output folder
(cli/metamorphic_output.py) and names it in the study's config; each worker writes its cases'
transformed traces there one at a time, so no transformed trace is returned through the
executor or held in memory (docs/threat-model.md, "Work budget"). The folder is moved into
place as ``transformed/`` only after the verdict, or removed on an error or Ctrl-C. File names
are built by tracekit (cases.transformed_name), never taken from a trace; a name that already
exists is an error (exclusive create), so nothing is written through a planted symlink.

With the Dask executor the workers must see the staging folder at the same absolute path (a
shared filesystem), as they already must see the source traces (executors/dask_exec.py).
"""

from __future__ import annotations

import os


def write_transformed(folder: str, name: str, data: bytes) -> None:
    """Create ``folder/name`` (it must not exist) holding ``data``."""
    with open(os.path.join(folder, name), "xb") as handle:
        handle.write(data)
