"""detect-secrets plugins for credential shapes its release lacks (docs/bundle-format.md section
8, "Detectors"). Loaded by detect-secrets from this file's path; imported only by redaction."""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

from tracekit.bundle.credentials import could_count


class OpenAIProjectKeyDetector(RegexBasedDetector):
    """OpenAI project and service-account keys (``sk-proj-``, ``sk-svcacct-``, ``sk-admin-``)."""

    secret_type = "OpenAI API key"
    denylist = [re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")]


class AnthropicKeyDetector(RegexBasedDetector):
    """Anthropic API and admin keys (``sk-ant-api03-...``, ``sk-ant-admin01-...``)."""

    secret_type = "Anthropic API key"
    denylist = [re.compile(r"\bsk-ant-[a-z]{3,8}[0-9]{2}-[A-Za-z0-9_-]{20,}")]


class GoogleApiKeyDetector(RegexBasedDetector):
    """Google API keys: ``AIza`` and 35 more characters."""

    secret_type = "Google API key"
    denylist = [re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")]


class HuggingFaceTokenDetector(RegexBasedDetector):
    """Hugging Face user and organisation tokens (``hf_``, ``api_org_``)."""

    secret_type = "Hugging Face token"
    denylist = [re.compile(r"\b(?:hf_|api_org_)[A-Za-z]{34}(?![A-Za-z])")]


class StripeKeyDetector(RegexBasedDetector):
    """Stripe secret and restricted keys, live and test (the stock detector knows live ones)."""

    secret_type = "Stripe key"
    denylist = [re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}")]


class PolicyBase64HighEntropyString(Base64HighEntropyString):
    """detect-secrets' base64 high-entropy detector, computing a candidate's entropy only when
    the false-positive policy could count it (tracekit/bundle/credentials.py, ``could_count``: at
    least ``MIN_ENTROPY_LENGTH`` characters mixing upper case, lower case and digits); any other
    is given 0 bits, so it is dropped where the policy would drop it. The result is the same
    (the entropy of a candidate that can count is upstream's, computed the same way); the time
    is not: upstream computes every quoted candidate's, and a trace's hex digests are most of
    them (a sealed 16 MiB trace: 48 s of `redact --secrets`, about half of it there)."""

    def calculate_shannon_entropy(self, data: str) -> float:
        if not could_count(data):
            return 0.0
        return float(super().calculate_shannon_entropy(data))
