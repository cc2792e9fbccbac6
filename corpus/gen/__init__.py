"""Corpus case modules. Each module defines ``cases() -> Iterable[Case]``; generate.py runs all."""
