#!/usr/bin/env python3
"""Small glTF seeds for tests/fuzz/fuzz_gltf (tests/fuzz/run_gltf.sh).

    gltf_seeds.py OUT_DIR [DATA_DIR]

From DATA_DIR/gltf (Fox.glb, cesium_man.gltf, any other .glb / .gltf with
FLOAT animation data): the nodes, skins and scenes, the first MAX_ANIMS
animations each cut to its first KEYS keys, meshes, materials, textures
and images dropped, one compact buffer (a .glb stays GLB, a .gltf gets a
base64 data: URI). Plus
synthetic documents for what those files lack: STEP, CUBICSPLINE, weights,
normalized byte / short rotations, sparse accessors (with and without a
bufferView), byteStride, node matrices, channels without a node, the
extras of pb_gltf_from_bvh. Seeds are 20 KiB at most: large seeds
slow libFuzzer down. Only the Python standard library."""

import base64
import json
import os
import struct
import sys

KEYS = 3
MAX_ANIMS = 2

COMP = {5120: ("b", 1), 5121: ("B", 1), 5122: ("h", 2), 5123: ("H", 2), 5125: ("I", 4), 5126: ("f", 4)}
NCOMP = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}


class Doc:
    """A glTF under construction: accessors appended to one buffer."""

    def __init__(self, root=None):
        self.root = root if root is not None else {"asset": {"version": "2.0"}}
        self.bin = bytearray()
        self.root.setdefault("bufferViews", [])
        self.root.setdefault("accessors", [])
        self.shared = None  # bytes of the shared bufferView
        self.pending = []   # accessors in it

    def view(self, data, stride=None):
        while len(self.bin) % 4:
            self.bin.append(0)
        v = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            v["byteStride"] = stride
        self.bin += data
        self.root["bufferViews"].append(v)
        return len(self.root["bufferViews"]) - 1

    def accessor(self, values, type_, ct=5126, normalized=False, stride=None, shared=False):
        """values: a flat list; the accessor gets count = len / components.
        shared: in one bufferView with the other shared accessors (at its
        byteOffset), else in a view of its own (stride: its byteStride)."""
        n = NCOMP[type_]
        fmt, size = COMP[ct]
        count = len(values) // n
        es = n * size
        st = stride or es
        data = bytearray()
        for i in range(count):
            elem = struct.pack("<%d%s" % (n, fmt), *values[i * n:(i + 1) * n])
            data += elem + bytes(st - es if i + 1 < count else 0)
        if shared:
            if self.shared is None:
                self.shared = bytearray()
            while len(self.shared) % 4:
                self.shared.append(0)
            a = {"bufferView": -1, "byteOffset": len(self.shared)}
            self.shared += data
            self.pending.append(a)
        else:
            a = {"bufferView": self.view(bytes(data), stride)}
        a.update({"componentType": ct, "count": count, "type": type_})
        if normalized:
            a["normalized"] = True
        self.root["accessors"].append(a)
        return len(self.root["accessors"]) - 1

    def sparse_accessor(self, count, type_, indices, values, base=None):
        """count elements, zeros (or base, a flat list) with sparse values."""
        n = NCOMP[type_]
        a = {"componentType": 5126, "count": count, "type": type_}
        if base is not None:
            a["bufferView"] = self.view(struct.pack("<%df" % len(base), *base))
        a["sparse"] = {
            "count": len(indices),
            "indices": {"bufferView": self.view(struct.pack("<%dH" % len(indices), *indices)),
                        "componentType": 5123},
            "values": {"bufferView": self.view(struct.pack("<%df" % (len(indices) * n), *values))},
        }
        self.root["accessors"].append(a)
        return len(self.root["accessors"]) - 1

    def finish(self, glb, path):
        if self.shared is not None:
            v = self.view(bytes(self.shared))
            for a in self.pending:
                a["bufferView"] = v
        while len(self.bin) % 4:
            self.bin.append(0)
        if self.bin:
            buf = {"byteLength": len(self.bin)}
            if not glb:
                buf["uri"] = ("data:application/octet-stream;base64," +
                              base64.b64encode(bytes(self.bin)).decode())
            self.root["buffers"] = [buf]
        for k in ("bufferViews", "accessors"):
            if not self.root[k]:
                del self.root[k]
        text = json.dumps(self.root, separators=(",", ":")).encode()
        if not glb:
            with open(path, "wb") as f:
                f.write(text)
            return
        text += b" " * (-len(text) % 4)
        chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
        if self.bin:
            chunks += struct.pack("<II", len(self.bin), 0x004E4942) + bytes(self.bin)
        with open(path, "wb") as f:
            f.write(struct.pack("<III", 0x46546C67, 2, 12 + len(chunks)) + chunks)


def load(path):
    """(json, [buffer bytes]) of a .glb or a .gltf with data: / file URIs."""
    with open(path, "rb") as f:
        data = f.read()
    bin_chunk = None
    if data[:4] == b"glTF":
        jl = struct.unpack_from("<I", data, 12)[0]
        root = json.loads(data[20:20 + jl])
        pos = 20 + jl
        if pos + 8 <= len(data):
            bl = struct.unpack_from("<I", data, pos)[0]
            bin_chunk = data[pos + 8:pos + 8 + bl]
    else:
        root = json.loads(data)
    bufs = []
    for b in root.get("buffers", []):
        uri = b.get("uri")
        if uri is None:
            bufs.append(bin_chunk)
        elif uri.startswith("data:"):
            bufs.append(base64.b64decode(uri.split(",", 1)[1]))
        else:
            with open(os.path.join(os.path.dirname(path), uri), "rb") as f:
                bufs.append(f.read())
    return root, bufs


def read_accessor(root, bufs, i):
    a = root["accessors"][i]
    fmt, size = COMP[a["componentType"]]
    n = NCOMP[a["type"]]
    if "sparse" in a or a["componentType"] != 5126 or "bufferView" not in a:
        raise ValueError("only plain FLOAT accessors are cut")
    v = root["bufferViews"][a["bufferView"]]
    st = v.get("byteStride") or n * size
    base = bufs[v["buffer"]]
    off = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    out = []
    for k in range(a["count"]):
        out += struct.unpack_from("<%d%s" % (n, fmt), base, off + k * st)
    return out, a["type"]


def cut(path, out, glb):
    """The skeleton and the first KEYS keys of every animation of path."""
    root, bufs = load(path)
    doc = Doc({"asset": {"version": "2.0", "generator": "posebatch gltf_seeds.py"}})
    nodes = []
    for nd in root.get("nodes", []):
        nd = {k: v for k, v in nd.items() if k not in ("mesh", "camera", "weights")}
        for k in ("translation", "rotation", "scale", "matrix"):
            if k in nd:  # 7 digits: shorter JSON, values as good for a seed
                nd[k] = [float("%.7g" % x) for x in nd[k]]
        nodes.append(nd)
    doc.root["nodes"] = nodes
    for k in ("scene", "scenes"):
        if k in root:
            doc.root[k] = root[k]
    skins = []
    for s in root.get("skins", []):
        s = dict(s)
        if "inverseBindMatrices" in s:
            vals, t = read_accessor(root, bufs, s["inverseBindMatrices"])
            s["inverseBindMatrices"] = doc.accessor(vals, t, shared=True)
        skins.append(s)
    if skins:
        doc.root["skins"] = skins
    anims = []
    inputs = {}  # source input accessor -> new one (samplers share key times)
    for a in root.get("animations", [])[:MAX_ANIMS]:
        samplers = []
        for s in a["samplers"]:
            t, _ = read_accessor(root, bufs, s["input"])
            v, vt = read_accessor(root, bufs, s["output"])
            k = min(KEYS, len(t))
            n = len(v) // len(t)  # values per key (x 3 for CUBICSPLINE)
            ns = dict(s)
            if s["input"] not in inputs:
                inputs[s["input"]] = doc.accessor(t[:k], "SCALAR", shared=True)
            ns["input"] = inputs[s["input"]]
            ns["output"] = doc.accessor(v[:k * n], vt, shared=True)
            samplers.append(ns)
        na = dict(a)
        na["samplers"] = samplers
        anims.append(na)
    if anims:
        doc.root["animations"] = anims
    doc.finish(glb, out)


def synthetic(out_dir):
    # 1. every interpolation, weights, byteStride, node matrix, a channel
    # without a node, normalized short rotations (GLB)
    d = Doc()
    d.root["nodes"] = [
        {"name": "root", "children": [1, 2], "translation": [0, 1, 0]},
        {"name": "arm", "rotation": [0, 0, 0.70710678, 0.70710678], "children": [3]},
        {"name": "leg", "matrix": [1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 1, 2, 3, 1]},
        {"name": "hand", "scale": [2, 2, 2], "extras": {"bvh_end_site": True}},
        {"name": "morph", "mesh": 0},
    ]
    d.root["meshes"] = [{"primitives": [{"attributes": {}}], "weights": [0, 0]}]
    d.root["skins"] = [{"joints": [0, 1, 2, 3]}]
    d.root["scenes"] = [{"nodes": [0, 4]}]
    t = [0.0, 0.5, 1.0]
    ti = d.accessor(t, "SCALAR")
    q = [0, 0, 0, 1, 0, 0.70710678, 0, 0.70710678, 0, 1, 0, 0]
    qs = [round(x * 32767) for x in q]
    s = []
    s.append({"input": ti, "output": d.accessor(qs, "VEC4", 5122, normalized=True)})
    s.append({"input": ti, "output": d.accessor([0, 0, 0, 1, 2, 3, -1, 0, 4], "VEC3", stride=16),
              "interpolation": "STEP"})
    cub = []
    for k in range(3):
        cub += [0.5, 0, 0] + [k, k * k, 1] + [0.5, 0, 0]
    s.append({"input": ti, "output": d.accessor(cub, "VEC3"), "interpolation": "CUBICSPLINE"})
    s.append({"input": ti, "output": d.accessor([0, 1, 0.5, 0.5, 1, 0], "SCALAR")})
    s.append({"input": d.accessor([0.25, 2.0], "SCALAR"),
              "output": d.accessor([0, 0, 0, 1, 0.5, 0.5, 0.5, 0.5], "VEC4")})
    ch = [
        {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
        {"sampler": 1, "target": {"node": 0, "path": "translation"}},
        {"sampler": 2, "target": {"node": 2, "path": "translation"}},
        {"sampler": 1, "target": {"node": 3, "path": "scale"}},
        {"sampler": 3, "target": {"node": 4, "path": "weights"}},
        {"sampler": 4, "target": {"path": "rotation"}},
        {"sampler": 4, "target": {"node": 0, "path": "rotation"}},
    ]
    d.root["animations"] = [{"name": "mix", "channels": ch, "samplers": s}]
    d.finish(True, os.path.join(out_dir, "synthetic_mix.glb"))

    # 2. sparse accessors, with and without a bufferView; normalized byte
    # rotations in CUBICSPLINE; the extras pb_gltf_from_bvh writes (.gltf)
    d = Doc()
    d.root["nodes"] = [
        {"name": "Hips", "children": [1], "translation": [0, 0, 0],
         "extras": {"bvh_channels": ["Xposition", "Yposition", "Zposition",
                                     "Zrotation", "Xrotation", "Yrotation"]}},
        {"name": "Chest", "children": [2], "translation": [0, 10, 0],
         "extras": {"bvh_channels": ["Yrotation"]}},
        {"name": "Chest_End", "translation": [0, 5, 0], "extras": {"bvh_end_site": True}},
    ]
    d.root["scene"] = 0
    d.root["scenes"] = [{"nodes": [0]}]
    ti = d.sparse_accessor(4, "SCALAR", [1, 2, 3], [1 / 30, 2 / 30, 3 / 30])
    pos = d.sparse_accessor(4, "VEC3", [2], [1, 2, 3], base=[0] * 12)
    rb = []
    for k in range(4):
        rb += [0, 0, 0, 0] + [0, 0, 127 if k % 2 else 0, 127 if k % 2 == 0 else 0] + [0, 0, 0, 0]
    rot = d.accessor(rb, "VEC4", 5120, normalized=True)
    d.root["animations"] = [{
        "name": "bvh",
        "extras": {"bvh_frame_time": 1 / 30},
        "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}},
                     {"sampler": 1, "target": {"node": 1, "path": "rotation"}}],
        "samplers": [{"input": ti, "output": pos},
                     {"input": ti, "output": rot, "interpolation": "CUBICSPLINE"}],
    }]
    d.finish(False, os.path.join(out_dir, "synthetic_sparse.gltf"))

    # 3. no animations, two skins, names BVH cannot hold as they are (GLB
    # without a BIN chunk)
    d = Doc()
    d.root["nodes"] = [{"name": "a", "children": [1]}, {"name": " b{}\t"}, {}]
    d.root["skins"] = [{"joints": [1]}, {"joints": [0, 2]}]
    d.finish(True, os.path.join(out_dir, "synthetic_static.glb"))


def main():
    out_dir = sys.argv[1]
    data = sys.argv[2] if len(sys.argv) > 2 else None
    os.makedirs(out_dir, exist_ok=True)
    n = 0
    if data and os.path.isdir(os.path.join(data, "gltf")):
        for name in sorted(os.listdir(os.path.join(data, "gltf"))):
            base, ext = os.path.splitext(name)
            if ext.lower() not in (".glb", ".gltf"):
                continue
            try:
                cut(os.path.join(data, "gltf", name), os.path.join(out_dir, base + ".seed" + ext),
                    ext.lower() == ".glb")
                n += 1
            except (ValueError, KeyError, OSError, struct.error) as e:
                print("gltf_seeds.py: %s skipped: %s" % (name, e), file=sys.stderr)
    else:
        print("gltf_seeds.py: no %s/gltf; synthetic seeds only" % data, file=sys.stderr)
    synthetic(out_dir)
    print(n + 3)


if __name__ == "__main__":
    main()
