"""Dataset-scale resampling of clips, and their motion features, on a Dask distributed cluster.

    >>> from posebatch import dataset
    >>> summary = dataset.resample("mocap/**/*.bvh", 480, "out/")      # LocalCluster here
    >>> print(summary)

    >>> from distributed import Client
    >>> summary = dataset.resample(paths, 480, "/shared/out", client=Client("tcp://scheduler:8786"))

One task per clip: each worker reads its clip from the path (shared storage
on a real cluster), resamples it with the library exactly as
``posebatch resample IN --fps N`` does and writes DIR/<input name> with the
library's BVH writer, so the bytes are the CLI's. A clip that fails is
recorded with its error and never stops the others.

``features(paths_or_glob, out_dir, client=None, **options)`` does the same
for ``posebatch features``: one task per clip, DIR/<stem>.npz (and
<stem>_mirror.npz with mirror=True) with the CLI's bytes.

Also a command: ``python3 -m posebatch.dataset GLOB... --fps N -o DIR
[--scheduler tcp://HOST:8786] [--workers N]``.
"""
from __future__ import annotations

import dataclasses
import glob as _glob
import os
import stat
import sys
import time
from typing import Iterable, List, Optional, Sequence, Tuple, Union

PathArg = Union[str, os.PathLike]

__all__ = ["resample", "features", "Summary", "ClipResult", "expand_paths"]


@dataclasses.dataclass
class ClipResult:
    """What happened to one clip."""

    path: str
    output: str
    frames_in: int = 0
    frames_out: int = 0
    seconds: float = 0.0  # read + resample + write on the worker
    error: Optional[str] = None
    warnings: Tuple[str, ...] = ()


@dataclasses.dataclass
class Summary:
    """The result of dataset.resample or dataset.features: counts, time and per-clip outcomes
    (fps: the rate asked for, 0 for a clip's own)."""

    fps: float
    out_dir: str
    clips: int = 0          # clips written
    frames: int = 0         # output frames written, all clips
    seconds: float = 0.0    # wall time of the whole map (cluster start excluded)
    workers: int = 0
    failures: List[Tuple[str, str]] = dataclasses.field(default_factory=list)  # (path, message)
    results: List[ClipResult] = dataclasses.field(default_factory=list)
    task: str = "resample"  # or "features"

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def clips_per_second(self) -> float:
        return self.clips / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        total = self.clips + len(self.failures)
        what = (f"features of {self.clips} of {total} clips" if self.task == "features" else
                f"{self.clips} of {total} clips resampled to {self.fps:g} fps")
        lines = [f"posebatch.dataset.{self.task}: {what} into {self.out_dir}: {self.frames} "
                 f"frames in {self.seconds:.2f} s on {self.workers} workers "
                 f"({self.clips_per_second:.1f} clips/s); {len(self.failures)} failed"]
        for path, msg in self.failures:
            lines.append(f"  FAILED {path}: {msg}")
        for r in self.results:
            for w in r.warnings:
                lines.append(f"  warning: {r.path}: {w}")
        return "\n".join(lines)


def expand_paths(paths_or_glob: Union[PathArg, Iterable[PathArg]]) -> List[str]:
    """Absolute paths from a glob pattern, a path, or an iterable of either
    (patterns are expanded with ``**`` recursion, sorted; a path that matches
    nothing is kept, so that its error is reported)."""
    if isinstance(paths_or_glob, (str, os.PathLike)):
        items: Sequence[PathArg] = [paths_or_glob]
    else:
        items = list(paths_or_glob)
    out: List[str] = []
    for item in items:
        s = os.fspath(item)
        if _glob.has_magic(s):
            out.extend(sorted(_glob.glob(s, recursive=True)))
        else:
            out.append(s)
    return [os.path.abspath(p) for p in out]


def _not_regular(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return "not a regular file"


def _check_output(output: str) -> None:
    """Raises ValueError when something other than a regular file is at output
    (through symbolic links): the library writes straight into a FIFO or
    device, and opening a FIFO nobody reads blocks the worker for ever."""
    try:
        mode = os.stat(output).st_mode
    except FileNotFoundError:  # nothing there (or a dangling link): created
        return
    if not stat.S_ISREG(mode):
        raise ValueError(f"output {output} is {_not_regular(mode)}, not a regular file; "
                         "not written")


def _check_input(path: str) -> None:
    """Raises ValueError unless path is a regular file: a FIFO or device would block the
    worker (or never end); like the CLI's glTF buffers, only regular files are read."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{_not_regular(mode)}, not a regular file")


def _resample_one(path: str, fps: float, output: str) -> ClipResult:
    """One clip, on a worker: read, resample, write; every error returned."""
    t0 = time.perf_counter()
    res = ClipResult(path=path, output=output)
    try:
        _check_input(path)  # and the output, as regular files alone are written
        _check_output(output)
        from posebatch import file_format
        if file_format(path) != "bvh":  # as 'posebatch resample' does: every animation
            if output.lower().endswith(".bvh"):  # the CLI refuses it too
                raise ValueError(f"a glTF input is resampled to glTF, not into the BVH "
                                 f"name {output}; not written (posebatch convert makes BVH)")
            from posebatch import read_gltf
            g = read_gltf(path).resample(fps)
            g.write(output)
            res.frames_in = res.frames_out = 0
        else:
            from posebatch import read_bvh
            clip = read_bvh(path)
            res.warnings = tuple(clip.warnings)
            res.frames_in = clip.num_frames
            if clip.num_frames == 0:
                raise ValueError("the file has no frames")
            # the CLI's job: resampled and written a block at a time
            res.frames_out = clip.resample_write(fps, output)
    except Exception as e:  # reported per clip, never raised
        res.error = f"{type(e).__name__}: {e}"
    res.seconds = time.perf_counter() - t0
    return res


def _plan(paths: List[str], out_dir: str, name, summary: "Summary") -> List[Tuple[str, str]]:
    """(input, output) pairs, output = out_dir/name(input's base name); clashes and outputs
    that would replace their input go to summary.failures instead."""
    jobs: List[Tuple[str, str]] = []
    seen = {}
    for p in paths:
        dst = os.path.join(out_dir, name(os.path.basename(p)))
        if dst in seen:
            summary.failures.append((p, f"same output {dst} as {seen[dst]}; not written"))
            continue
        seen[dst] = p
        if os.path.exists(dst) and os.path.exists(p) and os.path.samefile(dst, p):
            summary.failures.append((p, "the output would replace the input; not written"))
            continue
        jobs.append((p, dst))
    return jobs


def _run(jobs: List[Tuple[str, str]], task, args: tuple, summary: "Summary", client,
         workers: Optional[int]) -> "Summary":
    """task(input, output, *args) -> ClipResult for every job, in Dask tasks of a few jobs
    each, on client or on a LocalCluster of `workers` single-threaded processes started for
    the call."""
    own_cluster = None
    if client is None and jobs:
        import dask
        from distributed import Client, LocalCluster
        n = workers or os.cpu_count() or 1
        n = max(1, min(n, len(jobs)))
        # Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes glibc's
        # mmap threshold at 128 KiB: every buffer of a clip (a few MB) is then a fresh mmap
        # paid in page faults, 10-20x the library's own time (docs/performance.md, "Motion
        # features"); these workers keep freed memory up to 64 MiB and take buffers under
        # 32 MiB from the heap (variables already in the environment win, as in Dask)
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 1 << 26,
                              "distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 1 << 25}):
            own_cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
        client = Client(own_cluster)
    try:
        if jobs:
            from distributed import as_completed
            summary.workers = len(client.scheduler_info().get("workers", {}))
            t0 = time.perf_counter()
            # runs of clips, a few per worker and at most 8 each: a task costs the scheduler
            # about 2.6 ms, a clip of 600 frames 15 ms (docs/performance.md)
            size = max(1, min(8, len(jobs) // (4 * max(1, summary.workers))))
            runs = [jobs[i:i + size] for i in range(0, len(jobs), size)]
            futures = client.map(_run_clips, [task] * len(runs), runs,
                                 [args] * len(runs), pure=False)
            index = {f.key: i for i, f in enumerate(futures)}
            results: List[Optional[ClipResult]] = [None] * len(jobs)
            for fut in as_completed(futures):
                r = index[fut.key]
                try:
                    got = fut.result()
                except Exception as e:  # a worker died, the task was lost...
                    got = [ClipResult(path=p, output=d, error=f"{type(e).__name__}: {e}")
                           for p, d in runs[r]]
                for k, res in enumerate(got):
                    results[r * size + k] = res
            summary.seconds = time.perf_counter() - t0
            for r in results:
                assert r is not None
                summary.results.append(r)
                if r.error:
                    summary.failures.append((r.path, r.error))
                else:
                    summary.clips += 1
                    summary.frames += r.frames_out
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()
    return summary


def _run_clips(task, items: List[Tuple[str, str]], args: tuple) -> List[ClipResult]:
    """One Dask task: task(path, output, *args) for a run of clips (each catches its own
    errors)."""
    return [task(p, d, *args) for p, d in items]


def _resample_task(path: str, output: str, fps: float) -> ClipResult:
    return _resample_one(path, fps, output)


def resample(paths_or_glob: Union[PathArg, Iterable[PathArg]], fps: float, out_dir: PathArg,
             client=None, *, workers: Optional[int] = None) -> Summary:
    """Resamples every clip to ``fps`` on a Dask cluster, one task per clip.

    paths_or_glob: a glob pattern ("data/**/*.bvh"), a path, or an iterable of
    them. Each output is ``out_dir/<input file name>`` (out_dir is created),
    byte-identical to ``posebatch resample IN --fps N -o out_dir/``. Two inputs
    with the same file name, an output that would replace its input, an
    output path holding something other than a regular file (a FIFO would
    block the worker) and a glTF input whose output name ends in .bvh (the
    CLI refuses it too) are failures (nothing written for them). client: a ``distributed.Client``
    (e.g. ``Client("tcp://scheduler:8786")``; paths must then be readable and
    out_dir writable at the same path on every worker); None starts a
    LocalCluster of ``workers`` single-threaded worker processes (default: the
    CPU count) for this call. Returns a Summary (clips, frames, seconds,
    failures, per-clip results); ``print(summary)`` shows it.
    """
    fps = float(fps)
    if not (fps > 0 and fps < float("inf")):
        raise ValueError(f"resample(): argument 'fps' must be finite and > 0, got {fps!r}")
    out_dir_s = os.path.abspath(os.fspath(out_dir))
    os.makedirs(out_dir_s, exist_ok=True)
    summary = Summary(fps=fps, out_dir=out_dir_s)
    jobs = _plan(expand_paths(paths_or_glob), out_dir_s, lambda b: b, summary)
    return _run(jobs, _resample_task, (fps,), summary, client, workers)


def _stem_npz(base: str) -> str:
    """NAME.npz for an input's base name (its extension replaced), as `posebatch features -o DIR`"""
    dot = base.rfind(".")
    return (base[:dot] if dot > 0 else base) + ".npz"


def _features_one(path: str, output: str, options: dict) -> ClipResult:
    """One clip, on a worker: its features written as the CLI writes them; every error
    returned."""
    t0 = time.perf_counter()
    res = ClipResult(path=path, output=output)
    try:
        _check_input(path)
        opts = dict(options)
        mirror = bool(opts.pop("mirror", False))
        outs = [(output, False)]
        if mirror:
            outs.append((output[:-4] + "_mirror.npz", True))
        for out, m in outs:
            _check_output(out)
        import posebatch
        if opts.get("rest") is None and posebatch.file_format(path) == "bvh":
            clip = posebatch.read_bvh(path)  # its warnings kept
            res.warnings = tuple(clip.warnings)
        else:
            clip = path
        res.frames_in = clip.num_frames if hasattr(clip, "num_frames") else 0
        for out, m in outs:
            z = posebatch.features(clip, out, mirror=m, source=os.path.basename(path), **opts)
            res.frames_out += int(z["features"].shape[0] if "features" in z
                                  else z["positions"].shape[0])
    except Exception as e:  # reported per clip, never raised
        res.error = f"{type(e).__name__}: {e}"
    res.seconds = time.perf_counter() - t0
    return res


def features(paths_or_glob: Union[PathArg, Iterable[PathArg]], out_dir: PathArg, client=None, *,
             workers: Optional[int] = None, **options) -> Summary:
    """The motion features of every clip on a Dask cluster, one task per clip:
    ``out_dir/<stem>.npz`` (and ``<stem>_mirror.npz`` with mirror=True), byte-identical
    to ``posebatch features IN... -o out_dir/`` with the same options. options: those of
    posebatch.features (layout, fps, mirror, up, scale, root, feet, contact_speed,
    contact_height, map, target, feet_threshold, rest). Clashes, outputs that would replace
    their input and failing clips are recorded as in resample(); client and workers as
    there. Returns a Summary (frames: output frames, all files)."""
    bad = set(options) - {"layout", "fps", "mirror", "up", "scale", "root", "feet",
                          "contact_speed", "contact_height", "map", "target", "feet_threshold",
                          "rest"}
    if bad:
        raise TypeError(f"features(): unexpected argument(s) {sorted(bad)}")
    out_dir_s = os.path.abspath(os.fspath(out_dir))
    os.makedirs(out_dir_s, exist_ok=True)
    summary = Summary(fps=float(options.get("fps") or 0.0), out_dir=out_dir_s, task="features")
    jobs = _plan(expand_paths(paths_or_glob), out_dir_s, _stem_npz, summary)
    return _run(jobs, _features_one, (options,), summary, client, workers)


def main(argv: Optional[List[str]] = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python3 -m posebatch.dataset",
                                 description="Resample BVH clips on a Dask cluster (posebatch).")
    ap.add_argument("inputs", nargs="+", help="BVH files or glob patterns (quote them)")
    ap.add_argument("--fps", type=float, required=True)
    ap.add_argument("-o", "--output", required=True, help="output directory")
    ap.add_argument("--scheduler", help="tcp://HOST:8786 (default: a LocalCluster here)")
    ap.add_argument("--workers", type=int, help="LocalCluster worker processes")
    a = ap.parse_args(argv)
    client = None
    if a.scheduler:
        from distributed import Client
        client = Client(a.scheduler)
    s = resample(a.inputs, a.fps, a.output, client=client, workers=a.workers)
    print(s)
    return 0 if s.ok else 1


if __name__ == "__main__":
    sys.exit(main())
