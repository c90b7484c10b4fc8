from pathlib import Path

from apps.core import shared_data


def test_finds_the_file_under_the_configured_folder(tmp_path, monkeypatch):
    target = tmp_path / "elsewhere" / "data" / "csl"
    target.mkdir(parents=True)
    (target / "consolidated-2026-07-31.json").write_text("{}")
    monkeypatch.setenv("RACKPASS_SHARED_DIR", str(tmp_path / "elsewhere"))
    assert shared_data.shared_file("data/csl/consolidated-2026-07-31.json") == (
        target / "consolidated-2026-07-31.json"
    )


def test_finds_shared_beside_any_folder_above_the_checkout(tmp_path, monkeypatch):
    checkout = tmp_path / "work" / "clones" / "main"
    checkout.mkdir(parents=True)
    data = tmp_path / "work" / "shared" / "data" / "csl"
    data.mkdir(parents=True)
    (data / "consolidated-2026-07-31.json").write_text("{}")
    monkeypatch.delenv("RACKPASS_SHARED_DIR", raising=False)
    monkeypatch.setattr(shared_data, "ROOT", checkout)
    assert shared_data.shared_file("data/csl/consolidated-2026-07-31.json") == (
        data / "consolidated-2026-07-31.json"
    )


def test_takes_the_newest_edition_when_the_dated_name_differs(tmp_path, monkeypatch):
    data = tmp_path / "shared" / "data" / "csl"
    data.mkdir(parents=True)
    for day in ("2026-01-02", "2026-09-30"):
        (data / f"consolidated-{day}.json").write_text("{}")
    monkeypatch.delenv("RACKPASS_SHARED_DIR", raising=False)
    monkeypatch.setattr(shared_data, "ROOT", tmp_path / "repo")
    found = shared_data.shared_file("data/csl/consolidated-2026-07-31.json")
    assert found == data / "consolidated-2026-09-30.json"


def test_none_when_nowhere(tmp_path, monkeypatch):
    monkeypatch.setenv("RACKPASS_SHARED_DIR", str(tmp_path))
    monkeypatch.setattr(shared_data, "ROOT", Path(tmp_path / "a" / "b"))
    assert shared_data.shared_file("data/csl/nothing-here.json") is None
