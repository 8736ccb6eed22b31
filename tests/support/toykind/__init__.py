"""A toy kind of run, installed only in the test suite: proof that a new kind of run is
an app of its own, with no edit to ``webapp/runs`` and no migration of ``webapp/clips``.

It registers (:class:`~support.toykind.apps.ToyKindConfig`) one stage, ``toy``, that
stores a small text artifact of a kind of its own (``toy_note``) and records a result on
its own model (:class:`~support.toykind.models.ToyResult`).

Why here: a Django app needs an importable module path, and the test folders have no
``__init__.py`` (pytest imports test modules by file; a package there would shadow
``motioncore``, see ``tests/conftest.py``). ``tests/support`` is a real package on
``sys.path`` (pytest's ``pythonpath``), so the app is ``support.toykind``.
``webapp/settings_test.py`` installs it only where ``support`` is importable — pytest —
and not in ``manage.py`` or mypy runs, nor in the integration tests' worker processes
(which never run toy stages).
"""
