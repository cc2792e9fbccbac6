"""The command line: a typer app, one module per command group; the only place that exits."""
