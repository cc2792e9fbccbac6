"""Credential detection for ``redact --secrets`` (docs/bundle-format.md section 8,
"Detectors"): detect-secrets' stock detectors (cloud keys, private keys, JWTs, Stripe, Slack,
GitHub, ..., its keyword detector and its high-entropy detectors under our false-positive policy),
our plugins (tracekit/bundle/secret_plugins.py) and the harness's own credential shapes.

detect-secrets is imported lazily, here only: nothing else in tracekit pays for it."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

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


def _counts(secret_type: str, value: str | None) -> bool:
    threshold = ENTROPY_TYPES.get(secret_type)
    if threshold is None:
        return True
    if value is None or len(value) < MIN_ENTROPY_LENGTH:
        return False
    if not (re.search(r"[A-Z]", value) and re.search(r"[a-z]", value) and re.search(r"[0-9]", value)):
        return False
    if value.endswith("=") and len(value) in DIGEST_LENGTHS:
        return False
    return entropy(value) >= threshold


def _settings() -> dict[str, object]:
    used: list[dict[str, object]] = [{"name": name} for name in STOCK]
    used += [{"name": name, "path": _PLUGINS} for name in OURS]
    return {"plugins_used": used, "filters_used": []}


def detector() -> Callable[[Iterable[str]], bool]:
    """A function: does any of these texts hold a credential?"""
    import logging

    from detect_secrets.core.scan import scan_line
    from detect_secrets.plugins.keyword import DENYLIST
    from detect_secrets.settings import transient_settings

    from tracekit.judging.harness.assertions.no_secret_disclosure import PATTERNS

    logging.getLogger("detect-secrets").setLevel(logging.CRITICAL)
    harness = re.compile("|".join(f"(?:{p.pattern})" for p in PATTERNS.values()))
    # A text no detector can fire on is not handed to detect-secrets (its ad-hoc scan runs every
    # plugin on every line): every credential shape has a run of 16+ token characters, a keyword
    # or a URL's user:password@ (docs/bundle-format.md section 8, "Detectors").
    maybe = re.compile(
        "[A-Za-z0-9_+/=.-]{16,}|://[^\\s/@]+@|PRIVATE KEY|" + "|".join(f"(?:{w})" for w in DENYLIST), re.IGNORECASE
    )
    settings = _settings()

    def holds(texts: Iterable[str]) -> bool:
        with transient_settings(settings):
            for text in texts:
                if harness.search(text):
                    return True
                if maybe.search(text) and any(_counts(s.type, s.secret_value) for s in scan_line(text)):
                    return True
        return False

    return holds
