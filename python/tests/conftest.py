from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


@pytest.fixture
def fixtures() -> Path:
    return ROOT / "fixtures"


@pytest.fixture
def shared() -> Path:
    if not (SHARED / "golden").is_dir():
        pytest.skip(f"{SHARED} (real traces and HTA's golden output) is not beside the repository")
    return SHARED
