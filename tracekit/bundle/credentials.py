"""Credential detection for ``redact --secrets`` (docs/bundle-format.md section 8,
"Detectors"): detect-secrets' stock detectors (cloud keys, private keys, JWTs, Stripe, Slack,
GitHub, ..., its keyword detector and its high-entropy detectors under our false-positive policy),
our plugins (tracekit/bundle/secret_plugins.py) and the harness's own credential shapes.

detect-secrets is imported lazily, here only: nothing else in tracekit pays for it."""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

_PLUGINS = Path(__file__).with_name("secret_plugins.py").resolve().as_uri()
STOCK = (
    "AWSKeyDetector", "ArtifactoryDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
    "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
    "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "MailchimpDetector",
    "NpmDetector", "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector", "SendGridDetector",
    "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector", "StripeDetector",
    "TelegramBotTokenDetector", "TwilioKeyDetector", "KeywordDetector",
)
"""Not ``HexHighEntropyString``: traces are full of hex digests (hash chains, content and commit
ids) that no entropy test tells from a hex key (section 8, "False-positive policy"). The base64
high-entropy detector is upstream's, in ``OURS`` as ``PolicyBase64HighEntropyString``: it skips
the entropy of a candidate the policy below never counts."""
OURS = (
    "OpenAIProjectKeyDetector", "AnthropicKeyDetector", "GoogleApiKeyDetector",
    "HuggingFaceTokenDetector", "StripeKeyDetector", "PolicyBase64HighEntropyString",
)
ENTROPY_TYPES = {"Base64 High Entropy String": 4.5}
"""The false-positive policy for the high-entropy detector (section 8): a candidate counts only
when it is at least ``MIN_ENTROPY_LENGTH`` characters, mixes upper case, lower case and digits,
is not a padded base64 digest (``DIGEST_LENGTHS``), and its Shannon entropy (bits per character)
reaches the threshold; detect-secrets' ad-hoc line scan reports every word, so this filter is
what keeps prose, identifiers and digests from being withheld."""
MIN_ENTROPY_LENGTH = 20
DIGEST_LENGTHS = frozenset({24, 28, 44, 64, 88})
"""Padded base64 of 16, 20, 32, 48 and 64 bytes: MD5, SHA-1, SHA-256, SHA-384, SHA-512."""


def entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(c / len(text) * math.log2(c / len(text)) for c in counts.values())


def could_count(value: str) -> bool:
    """The policy's first tests of a high-entropy candidate: at least ``MIN_ENTROPY_LENGTH``
    characters mixing upper case, lower case and digits (before its entropy is computed)."""
    return len(value) >= MIN_ENTROPY_LENGTH and bool(_UPPER.search(value) and _LOWER.search(value) and _DIGIT.search(value))


_UPPER, _LOWER, _DIGIT = re.compile("[A-Z]"), re.compile("[a-z]"), re.compile("[0-9]")


def _counts(secret_type: str, value: str | None) -> bool:
    threshold = ENTROPY_TYPES.get(secret_type)
    if threshold is None:
        return True
    if value is None or not could_count(value):
        return False
    if value.endswith("=") and len(value) in DIGEST_LENGTHS:
        return False
    return entropy(value) >= threshold


def _settings() -> dict[str, object]:
    used: list[dict[str, object]] = [{"name": name} for name in STOCK]
    used += [{"name": name, "path": _PLUGINS} for name in OURS]
    return {"plugins_used": used, "filters_used": []}


LOOK_COST = 32
"""Units each view costs before any plugin runs: the harness's patterns and the prefilter."""
SCAN_COST = 2048
"""Work-budget units (docs/threat-model.md, "Work budget"; a unit is about what ``--match``
spends on a byte) each view handed to the plugins is charged before they run: their fixed cost
(about 60 us a view on this project's machine; docs/performance.md, "Round 11")."""
SCAN_BYTE = 48
"""Units each character of a view costs the plugins (about 1.2 us)."""
START_BYTE = 1
"""Units per character after a start of a pattern that can scan to the end of the view: ``//``
(npm), ``sk-`` (OpenAI), ``eyJ`` (JWT). Each such start costs up to the rest of the view, so a
view of nothing but starts costs its length squared."""
KEYWORD_TAIL = 48
"""Units per character of the word run after a keyword: the keyword detector's patterns try the
rest of the pattern at every character of that run (``pwd_pwd_...`` costs its length squared)."""
KEYWORD_SPAN = 8
"""Units per character of a quoted value that follows a keyword's assignment (up to the second
quote after it: how far the value's pattern runs before the detector backs off), per quote that
could open it."""
BACKTICK_SPAN = 2
"""Units per character from a backtick before a word character to the second quote after it: the
detector's comparison pattern (a quoted value, then ``==``) tries every backtick there."""
_TAIL = re.compile(r"\w*")
_REACH = re.compile(r"\S{0,53}\s*[=!]{0,3}\s*.?")
"""From a keyword's word run to the last place its value's opening quote can be: up to 50
characters and the closing quotes and ``:`` of the name, spaces, ``=``, ``==``, ``!==`` or ``=>``,
spaces."""
_QUOTES = re.compile("['\"`]")
_STOPS = re.compile("['\"\x0b]")
"""What ends a quoted value in the detector's patterns (``[^\\v'"]``: ``\\v`` is \\x0b in Python)."""
_BACKTICK = re.compile(r"`\w")
_STARTS = re.compile("(?=//|sk-|eyJ)")
"""Where npm's, OpenAI's and JWT's patterns start and may run to the end of the view (found by
timing every plugin on runs of each literal its patterns begin with; ``//`` overlapping)."""


def keyword_cost(text: str, keywords: re.Pattern[str]) -> int:
    """What the keyword detector may cost on ``text``, in work-budget units: its length, each
    keyword's word run (:data:`KEYWORD_TAIL`) and quoted value (:data:`KEYWORD_SPAN`), each
    backtick's span (:data:`BACKTICK_SPAN`); each keyword and backtick at least
    :data:`SCAN_BYTE`, so that counting them is paid for. Linear in ``text``: a word run is
    measured once for all its keywords, and spans end at quotes found once."""
    stops = [match.start() for match in _STOPS.finditer(text)]

    def span(start: int) -> int:  # to the second quote at or after ``start``
        second = bisect.bisect_left(stops, start) + 1
        return (stops[second] if second < len(stops) else len(text)) - start

    cost = SCAN_BYTE * len(text)
    run_end = -1
    for match in keywords.finditer(text):
        if match.end() > run_end:
            run_end = _TAIL.match(text, match.end()).end()  # type: ignore[union-attr]
        cost += SCAN_BYTE + KEYWORD_TAIL * (run_end - match.end())
        reach = _REACH.match(text, run_end).end()  # type: ignore[union-attr]
        opening = len(_QUOTES.findall(text, run_end, reach))
        if opening:
            cost += KEYWORD_SPAN * opening * span(run_end)
    for match in _BACKTICK.finditer(text):
        cost += SCAN_BYTE + BACKTICK_SPAN * span(match.start() + 1)
    return cost


def scan_cost(text: str) -> int:
    """What the plugins other than the keyword detector may cost on ``text``, in units."""
    starts = len(_STARTS.findall(text))
    return SCAN_COST + SCAN_BYTE * len(text) + START_BYTE * starts * len(text)


def _plugins(settings: dict[str, object]) -> tuple[list[Any], list[bool], list[bool]]:
    """The plugins our settings name, built once; whether each takes ``enable_eager_search``; and
    whether it is the keyword detector. Called as ``scan_line`` calls them for an ad-hoc line,
    without its per-call set-up (each plugin's ``analyze_line`` with the arguments its signature
    takes; no filter applies to an ad-hoc scan with ``filters_used`` empty; :data:`VERIFYING`
    unset), they find the same secrets (tests/unit/bundle/test_credentials.py)."""
    import inspect

    from detect_secrets.plugins.keyword import KeywordDetector
    from detect_secrets.settings import get_plugins, transient_settings

    with transient_settings(settings):
        plugins = list(get_plugins())
    eager = [("enable_eager_search" in inspect.signature(p.analyze_line).parameters) for p in plugins]
    return plugins, eager, [isinstance(p, KeywordDetector) for p in plugins]


def detector() -> Callable[[Iterable[str], Callable[[int], None]], bool]:
    """A function: does any of these texts hold a credential? Each text the plugins read is
    charged to the second argument first (:func:`scan_cost`, :func:`keyword_cost`), which raises
    to stop."""
    import logging

    from detect_secrets.plugins.keyword import DENYLIST
    from detect_secrets.settings import get_settings, transient_settings
    from detect_secrets.util.code_snippet import get_code_snippet

    from tracekit.judging.harness.assertions.no_secret_disclosure import PATTERNS

    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)
    harness = re.compile("|".join(f"(?:{p.pattern})" for p in PATTERNS.values()))
    # A text no detector can fire on is not handed to detect-secrets' plugins: every credential
    # shape has a run of 16+ token characters, a keyword or a URL's user:password@
    # (docs/bundle-format.md section 8, "Detectors").
    maybe = re.compile(
        "[A-Za-z0-9_+/=.-]{16,}|://[^\\s/@]+@|PRIVATE KEY|" + "|".join(f"(?:{w})" for w in DENYLIST), re.IGNORECASE
    )
    # Each of the keyword detector's patterns holds one of its keywords, and it is the costliest
    # plugin (its patterns try \w* after each keyword): a text without a keyword, in any case,
    # skips it.
    keywords = re.compile("|".join(DENYLIST), re.IGNORECASE)
    settings = _settings()
    plugins, eager, gated = _plugins(settings)

    def holds(texts: Iterable[str], charge: Callable[[int], None]) -> bool:
        if VERIFYING in get_settings().filters:  # someone else's settings: the plugins would verify
            with transient_settings(settings):
                return scan(texts, charge)
        return scan(texts, charge)

    def scan(texts: Iterable[str], charge: Callable[[int], None]) -> bool:
        for text in texts:
            charge(LOOK_COST)
            if harness.search(text):
                return True
            if not maybe.search(text):
                continue
            charge(scan_cost(text))
            context = get_code_snippet(lines=[text], line_number=1)
            for plugin, wants_eager, keyword in zip(plugins, eager, gated, strict=True):
                if keyword:
                    if not keywords.search(text):
                        continue
                    charge(keyword_cost(text, keywords))
                extra = {"enable_eager_search": True} if wants_eager else {}
                found = plugin.analyze_line(filename=ADHOC, line=text, line_number=0, context=context, **extra)
                if any(_counts(s.type, s.secret_value) for s in found):
                    return True
        return False

    return holds


VERIFYING = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
"""The one setting a plugin reads when it scans (it then asks a provider whether a secret is live):
absent from detect-secrets' defaults, so the plugins, built once under our settings, run under the
process's own without entering ours per call (about 1.4 ms a call: a bundle of 320,000 tiny blobs
spent most of its time there)."""
ADHOC = "adhoc-string-scan"
"""The file name detect-secrets' ``scan_line`` gives an ad-hoc line (it picks the keyword
detector's patterns by file type)."""
