"""The browser tests' ``browser`` fixture (headless Debian Chromium through Playwright),
from :mod:`support.browser`; without Chromium or Playwright this folder is skipped with
the reason."""

from support.browser import browser  # noqa: F401 (the fixture, for this folder's tests)
