"""Draw a :class:`~tracekit.report.html.model.Page` as one self-contained, inert HTML file
(docs/report.md; docs/threat-model.md, "The HTML report").

Jinja2 is imported here only, and this module only by ``tracekit report``, so no other command
pays for it. Autoescaping is on for every template; the one stylesheet is inline and allowed by
its SHA-256 in the Content-Security-Policy, which forbids everything else (``default-src
'none'``): no script, no image, font, frame or connection of any kind. The output depends only
on the page: no clock, no randomness, no absolute path.
"""

from __future__ import annotations

import base64
import hashlib

from tracekit import __version__
from tracekit.report.html.model import Page


def style_hash(css: str) -> str:
    """The CSP source that allows exactly this stylesheet."""
    digest = hashlib.sha256(css.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def render(page: Page) -> str:
    """The report's HTML text."""
    import jinja2
    from markupsafe import Markup

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("tracekit.report.html", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        keep_trailing_newline=True,
    )
    css = env.get_template("style.css").render()
    html = env.get_template("report.html.j2").render(
        page=page, css=Markup(css), style_hash=style_hash(css), version=__version__
    )
    return html
