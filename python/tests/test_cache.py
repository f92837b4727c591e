"""The kernel cache: GPU artifacts compiled on first use (no GPU needed)."""

import json
import os

import pytest

import gdn


def test_compiles_once_per_key(tmp_path):
    kernel = gdn.compile(schedule="fused", cache_dir=tmp_path)
    path = kernel.cached_artifact(K=64, V=64, dtype="bf16")
    assert os.path.dirname(path) == str(tmp_path)
    manifest = json.load(open(os.path.join(path, "manifest.json")))
    assert manifest["format"] == "gdn-artifact-2"
    assert manifest["shape"]["K"] == 64 and manifest["shape"]["V"] == 64
    ptx = [f for f in os.listdir(path) if f.endswith(".ptx")]
    assert ptx and os.path.getsize(os.path.join(path, ptx[0])) > 10000
    stamp = os.path.getmtime(os.path.join(path, "manifest.json"))
    # The same key is a hit: same directory, nothing rewritten.
    again = gdn.compile(schedule="fused", cache_dir=tmp_path)
    assert again.cached_artifact(K=64, V=64, dtype="bf16") == path
    assert os.path.getmtime(os.path.join(path, "manifest.json")) == stamp
    # Another shape is another key.
    other = kernel.cached_artifact(K=64, V=64, dtype="f16")
    assert other != path and os.path.isfile(os.path.join(other, "manifest.json"))
    assert sorted(os.listdir(tmp_path)) == sorted(
        [os.path.basename(path), os.path.basename(other)]), "stray files in the cache"


def test_environment_moves_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GDN_CACHE_DIR", str(tmp_path / "moved"))
    path = gdn.compile(schedule="split-seq").cached_artifact(K=64, V=64)
    assert path.startswith(str(tmp_path / "moved") + os.sep)


def test_refusals(tmp_path):
    kernel = gdn.compile(schedule="fused", cache_dir=tmp_path)
    with pytest.raises(TypeError, match="dtype 'f32'; expected bf16 or f16"):
        kernel.cached_artifact(64, 64, "f32")
    with pytest.raises(ValueError, match="head size K = 257: expected 1 to 256"):
        kernel.cached_artifact(257, 64)
    with pytest.raises(ValueError, match="head size V = 0: expected 1 to 512"):
        kernel.cached_artifact(64, 0)
    with pytest.raises(ValueError, match="schedule 'auto' picks per call"):
        gdn.compile(schedule="auto", cache_dir=tmp_path).cached_artifact(64, 64)
    assert os.listdir(tmp_path) == []
