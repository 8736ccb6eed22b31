"""Helpers the tests import: paths, corpus, fixtures, harnesses (never ``conftest``)."""
