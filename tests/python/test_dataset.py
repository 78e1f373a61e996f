"""posebatch.dataset on a Dask LocalCluster of 2 worker processes: every clip of
data/ and ../shared/data/mocap resampled, byte-identical to the CLI's output;
a broken clip and a name clash are failures that stop nothing."""
import os
import subprocess

import pytest

distributed = pytest.importorskip("distributed")

from posebatch import dataset  # noqa: E402
from conftest import DATA, ROOT, SHARED, SHARED_DIR  # noqa: E402

FPS = "200"


@pytest.fixture(scope="module")
def client():
    from distributed import Client, LocalCluster
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0")
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_dataset_matches_cli(client, cli, tmp_path):
    assert DATA, "no clip in data/"
    groups = {"data": DATA, "shared": SHARED}
    for name, paths in groups.items():
        if not paths:
            continue
        broken = tmp_path / f"broken_{name}.bvh"
        broken.write_text("HIERARCHY\nROOT Hips\n{\n")
        out = tmp_path / "py" / name
        s = dataset.resample(list(paths) + [str(broken)], float(FPS), out, client=client)
        print(s)
        assert s.clips == len(paths) and s.workers == 2
        assert [p for p, _ in s.failures] == [str(broken)]
        assert s.frames == sum(r.frames_out for r in s.results) > 0
        assert "1 failed" in str(s)
        ref = tmp_path / "cli" / name
        ref.mkdir(parents=True)
        subprocess.run([cli, "resample", *paths, "-o", str(ref) + "/", "--fps", FPS], check=True,
                       capture_output=True)
        for p in paths:
            base = os.path.basename(p)
            a = (out / base).read_bytes()
            b = (ref / base).read_bytes()
            assert a == b, f"{base}: dataset output differs from the CLI's"
        assert not (out / broken.name).exists()


def test_dataset_glob_and_clash(client, tmp_path):
    s = dataset.resample(os.path.join(ROOT, "data", "*.bvh"), 30, tmp_path / "o", client=client)
    assert s.ok and s.clips == len(DATA)
    if SHARED and any(os.path.basename(p) == "cmu_01_03.bvh" for p in SHARED):
        s = dataset.resample(DATA + SHARED, 30, tmp_path / "o2", client=client)
        assert any("same output" in m for _, m in s.failures)
        assert s.clips == len(DATA) + len(SHARED) - len(s.failures)
    with pytest.raises(ValueError, match="'fps'"):
        dataset.resample(DATA, 0, tmp_path / "o3", client=client)


def test_dataset_fifo_fails_and_gltf_like_the_cli(client, cli, tmp_path):
    """A FIFO input is a per-clip failure (it used to hang the call); glTF
    inputs are resampled as the CLI resamples them, byte for byte."""
    fifo = tmp_path / "pipe.bvh"
    os.mkfifo(fifo)
    gltf = [p for p in (os.path.join(SHARED_DIR, "gltf", n)
                        for n in ("Fox.glb", "cesium_man.gltf")) if os.path.exists(p)]
    s = dataset.resample([str(fifo), DATA[0]] + gltf, 30, tmp_path / "o", client=client)
    assert [(p, "regular" in m) for p, m in s.failures] == [(str(fifo), True)]
    assert s.clips == 1 + len(gltf)
    ref = tmp_path / "cli"
    ref.mkdir()
    for p in gltf:
        out = ref / os.path.basename(p)
        subprocess.run([cli, "resample", p, "--fps", "30", "-o", str(out)], check=True,
                       capture_output=True)
        assert (tmp_path / "o" / os.path.basename(p)).read_bytes() == out.read_bytes()
