"""No claims: calibration judges nothing; the claims of the other experiments read its record."""

from __future__ import annotations

CLAIMS: list = []
