"""Strict rule S3: MCP trust labels, which upstream records but no assertion reads.

A tool call is an MCP call when one of its names is a canonical ``mcp/<server>/<tool>`` or it
carries ``mcp_server_id``. Its server's trust labels are the call's own ``trust`` plus the
``trust`` of every MCP lifecycle event (``mcp_*``) recorded for that ``server_id``. The call is
flagged when *any* of those labels is denied, so a benign label on the call cannot mask a
lifecycle event that recorded the server as untrusted (docs/harness.md, "S3").
"""

from __future__ import annotations

from collections import defaultdict

from tracekit.formats.harness.trace import MCP_EVENTS, Trace, all_names, split_mcp_name


def server_labels(trace: Trace) -> dict[str, set[str]]:
    """``{server_id: {trust labels}}`` from MCP lifecycle events."""
    labels: dict[str, set[str]] = defaultdict(set)
    for event in trace.events:
        server, trust = event.get("server_id"), event.get("trust")
        kind = event.get("type")
        if isinstance(kind, str) and kind in MCP_EVENTS and isinstance(server, str) and isinstance(trust, str):
            labels[server].add(trust)
    return labels


def _servers(names: list[str], declared: object) -> set[str]:
    servers = {parts[0] for name in names if (parts := split_mcp_name(name)) is not None}
    if isinstance(declared, str) and declared.strip():
        servers.add(declared.strip())
    return servers


def denied_trust_calls(trace: Trace, denied: frozenset[str]) -> list[tuple[str, str]]:
    """``(name, label)`` for every MCP call whose server carries a denied trust label, sorted
    and without repeats; empty when ``denied`` is empty."""
    if not denied:
        return []
    by_server = server_labels(trace)
    flagged: set[tuple[str, str]] = set()
    for call in trace.tool_calls:
        names = all_names(call)
        servers = _servers(names, call.get("mcp_server_id"))
        if not servers:
            continue
        labels = {label for server in servers for label in by_server.get(server, set())}
        own = call.get("trust")
        if isinstance(own, str):
            labels.add(own)
        shown = names[0] if names else "<unnamed>"
        flagged.update((shown, label) for label in labels & denied)
    return sorted(flagged)
