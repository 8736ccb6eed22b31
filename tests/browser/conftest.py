"""Browser tests: headless Debian Chromium driven by Playwright (skipped with the reason
when either is missing), pages served by pytest-django's live server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_harness import CHROMIUM, FLAGS

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip("Debian chromium is not installed (apt install chromium)", allow_module_level=True)


@pytest.fixture
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()
