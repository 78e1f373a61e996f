"""A double-precision reference for `posebatch skin`: reads the glTF model (.glb or
.gltf with data: or file URIs) in plain Python, samples the animation at time T
(LINEAR and STEP keys; rotations by slerp), composes the nodes' global matrices,
skins the first skinned mesh (JOINTS_0 / WEIGHTS_0, inverseBindMatrices) and compares
it with the OBJ posebatch wrote: every vertex within 1e-5 of the mesh's extent, the
same triangles. usage: skin_ref.py MODEL T ANIM OUT.obj; prints the worst error."""
import base64
import json
import math
import os
import struct
import sys

path, T, anim, obj = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
raw = open(path, "rb").read()
bins = []
if raw[:4] == b"glTF":
    jl = struct.unpack_from("<I", raw, 12)[0]
    doc = json.loads(raw[20:20 + jl])
    p = 20 + jl
    bin_chunk = raw[p + 8:p + 8 + struct.unpack_from("<I", raw, p)[0]] if p + 8 <= len(raw) else b""
else:
    doc = json.loads(raw)
    bin_chunk = b""
for b in doc.get("buffers", []):
    uri = b.get("uri")
    if uri is None:
        bins.append(bin_chunk)
    elif uri.startswith("data:"):
        bins.append(base64.b64decode(uri.split(",", 1)[1]))
    else:
        bins.append(open(os.path.join(os.path.dirname(path), uri), "rb").read())
FMT = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}
NC = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def acc(i):
    a = doc["accessors"][i]
    v = doc["bufferViews"][a["bufferView"]]
    f, n = FMT[a["componentType"]], NC[a["type"]]
    size = struct.calcsize(f)
    stride = v.get("byteStride", size * n)
    base = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    data = bins[v["buffer"]]
    out = []
    for k in range(a["count"]):
        e = list(struct.unpack_from("<%d%s" % (n, f), data, base + k * stride))
        if a.get("normalized"):
            e = [x / {"B": 255.0, "H": 65535.0}[f] for x in e]
        out.append(e)
    return out


def qmat(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


def slerp(a, b, u):
    d = sum(x * y for x, y in zip(a, b))
    if d < 0:
        b, d = [-x for x in b], -d
    if d > 0.9995:
        r = [x + u * (y - x) for x, y in zip(a, b)]
    else:
        th = math.acos(d)
        s = math.sin(th)
        r = [(math.sin((1 - u) * th) * x + math.sin(u * th) * y) / s for x, y in zip(a, b)]
    n = math.sqrt(sum(x * x for x in r))
    return [x / n for x in r]


nodes = doc["nodes"]
trs = [[list(n.get("translation", [0, 0, 0])), list(n.get("rotation", [0, 0, 0, 1])),
        list(n.get("scale", [1, 1, 1]))] for n in nodes]
if doc.get("animations"):
    an = doc["animations"][anim]
    for ch in an["channels"]:
        tgt = ch["target"]
        if "node" not in tgt or tgt["path"] == "weights":
            continue
        s = an["samplers"][ch["sampler"]]
        ts = [t[0] for t in acc(s["input"])]
        vs = acc(s["output"])
        if T <= ts[0]:
            val = vs[0]
        elif T >= ts[-1]:
            val = vs[-1]
        else:
            k = max(i for i in range(len(ts)) if ts[i] <= T)
            u = (T - ts[k]) / (ts[k + 1] - ts[k])
            if s.get("interpolation", "LINEAR") == "STEP":
                val = vs[k]
            elif tgt["path"] == "rotation":
                val = slerp(vs[k], vs[k + 1], u)
            else:
                val = [x + u * (y - x) for x, y in zip(vs[k], vs[k + 1])]
        trs[tgt["node"]][{"translation": 0, "rotation": 1, "scale": 2}[tgt["path"]]] = val
parent = [-1] * len(nodes)
for i, n in enumerate(nodes):
    for c in n.get("children", []):
        parent[c] = i


def local(i):
    if "matrix" in nodes[i]:  # column-major; glTF animates no node that has one
        m = nodes[i]["matrix"]
        return [[m[c * 4 + r] for c in range(4)] for r in range(4)]
    t, q, s = trs[i]
    n = math.sqrt(sum(x * x for x in q))
    R = qmat([x / n for x in q])
    return [[R[r][0] * s[0], R[r][1] * s[1], R[r][2] * s[2], t[r]] for r in range(3)] + [[0, 0, 0, 1]]


def mul(A, B):
    return [[sum(A[r][k] * B[k][c] for k in range(4)) for c in range(4)] for r in range(4)]


glob = {}


def world(i):
    if i not in glob:
        glob[i] = local(i) if parent[i] < 0 else mul(world(parent[i]), local(i))
    return glob[i]


node = next(n for n in nodes if "mesh" in n and "skin" in n)
skin = doc["skins"][node["skin"]]
ibm = acc(skin["inverseBindMatrices"]) if "inverseBindMatrices" in skin else None
S = []
for k, j in enumerate(skin["joints"]):
    B = [[ibm[k][c * 4 + r] for c in range(4)] for r in range(4)] if ibm else [[float(r == c) for c in range(4)] for r in range(4)]
    S.append(mul(world(j), B))
want, tris = [], []
for prim in doc["meshes"][node["mesh"]]["primitives"]:
    at = prim["attributes"]
    P, J, W = acc(at["POSITION"]), acc(at["JOINTS_0"]), acc(at["WEIGHTS_0"])
    v0 = len(want)
    for p, js, ws in zip(P, J, W):
        want.append([sum(w * (S[j][r][0] * p[0] + S[j][r][1] * p[1] + S[j][r][2] * p[2] + S[j][r][3])
                         for j, w in zip(js, ws)) for r in range(3)])
    idx = [i[0] for i in acc(prim["indices"])] if "indices" in prim else list(range(len(P)))
    tris += [v0 + i for i in idx]
got, gtris = [], []
for line in open(obj):
    f = line.split()
    if f and f[0] == "v":
        got.append([float(x) for x in f[1:4]])
    elif f and f[0] == "f":
        gtris += [int(x.split("/")[0]) - 1 for x in f[1:4]]
if len(got) != len(want) or gtris != tris:
    sys.exit("vertex count %d (want %d) or triangles differ" % (len(got), len(want)))
lo = [min(v[r] for v in want) for r in range(3)]
hi = [max(v[r] for v in want) for r in range(3)]
extent = math.sqrt(sum((h - l) ** 2 for h, l in zip(hi, lo)))
worst = max(abs(a - b) for g, w in zip(got, want) for a, b in zip(g, w))
print("%d vertices, worst error %.3g of the extent %.4g" % (len(got), worst / extent, extent))
sys.exit(0 if worst <= 1e-5 * extent else 1)
