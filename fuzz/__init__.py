"""Fuzz targets and drivers; run with ``make fuzz`` (outside the unit suite)."""
