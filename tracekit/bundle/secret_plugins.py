"""detect-secrets plugins for credential shapes its release lacks (docs/bundle-format.md section
8, "Detectors"). Loaded by detect-secrets from this file's path; imported only by redaction."""

from __future__ import annotations

import re

from detect_secrets.plugins.base import RegexBasedDetector


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
