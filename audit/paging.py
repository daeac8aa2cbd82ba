"""How many rows a console list shows a page (one number for every list)."""

from __future__ import annotations

from typing import Final

CONSOLE_PAGE_SIZE: Final = 50
