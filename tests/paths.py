"""Where the tests find the repository and their data (one place, whatever a test's depth)."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
SCENARIOS = DATA / "scenarios"
REFERENCES = DATA / "references"
SCREEN_REFERENCES = REFERENCES / "screens"
