"""posebatch.dataset on a Dask LocalCluster of 2 worker processes: every clip of
data/ and ../shared/data/mocap resampled, byte-identical to the CLI's output;
a broken clip and a name clash are failures that stop nothing."""
import os
import shutil
import stat
import subprocess
import threading

import pytest

distributed = pytest.importorskip("distributed")

from posebatch import dataset  # noqa: E402
from conftest import CLIP, DATA, ROOT, SHARED, SHARED_DIR, cli_path  # noqa: E402

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


def run_unless_blocked(fifo, call, seconds=90):
    """call() in a thread; if it is still running after `seconds` (a worker
    blocked opening the FIFO for writing), opens and closes the FIFO's read end
    so that the worker goes on, and fails the test."""
    box = {}

    def target():
        try:
            box["value"] = call()
        except BaseException as e:  # re-raised below
            box["error"] = e
    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        t.join(seconds)
        pytest.fail(f"blocked on the FIFO {fifo} for {seconds} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.mark.parametrize("via_link", [False, True])
def test_dataset_output_fifo_fails_that_clip(client, tmp_path, via_link):
    """A FIFO where an output goes (or a link to one) is a failure of that clip,
    the FIFO left as it is; it used to block the call for ever."""
    src = tmp_path / "in"
    src.mkdir()
    a, b = src / "a.bvh", src / "b.bvh"
    shutil.copyfile(CLIP, a)
    shutil.copyfile(CLIP, b)
    out = tmp_path / "o"
    out.mkdir()
    fifo = tmp_path / "fifo" if via_link else out / "a.bvh"
    os.mkfifo(fifo)
    if via_link:
        os.symlink(fifo, out / "a.bvh")
    s = run_unless_blocked(fifo, lambda: dataset.resample([a, b], 30, out, client=client))
    assert [p for p, _ in s.failures] == [str(a)]
    assert "is a FIFO, not a regular file; not written" in s.failures[0][1]
    assert s.clips == 1 and (out / "b.bvh").stat().st_size > 0
    assert stat.S_ISFIFO(os.stat(out / "a.bvh").st_mode)


def test_dataset_gltf_into_a_bvh_name_is_refused_like_the_cli(client, tmp_path):
    """A glTF file named .bvh: its output name ends in .bvh, where the CLI
    refuses to write glTF; the dataset refuses that clip too."""
    import posebatch as pb
    src = tmp_path / "in"
    src.mkdir()
    pb.read_bvh(CLIP).to_gltf().write(src / "walk.gltf")
    os.rename(src / "walk.gltf", src / "walk.bvh")
    assert pb.file_format(src / "walk.bvh") == "gltf"
    out = tmp_path / "o"
    s = dataset.resample([src / "walk.bvh", CLIP], 30, out, client=client)
    assert [p for p, _ in s.failures] == [str(src / "walk.bvh")]
    assert "not into the BVH name" in s.failures[0][1]
    assert s.clips == 1 and not (out / "walk.bvh").exists()
    cli = cli_path()
    if cli:
        r = subprocess.run([cli, "resample", str(src / "walk.bvh"), "--fps", "30", "-o",
                            str(tmp_path / "cli") + "/"], capture_output=True, text=True)
        assert r.returncode == 1 and "use 'posebatch convert'" in r.stderr
        assert not (tmp_path / "cli" / "walk.bvh").exists()
