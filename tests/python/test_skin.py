"""Skinning from Python: skinning_matrices and skin (linear blend skinning) against
float64 numpy references, the conventions (numpy's m[r, c]), the GIL released, errors."""
import sys
import threading
import time

import numpy as np
import pytest

import posebatch as pb
from conftest import unit_quats


def ref_matrix(q, t, s):
    """[R diag(s), t; 0 0 0 1] in float64 for unit q (w, x, y, z)."""
    w, x, y, z = (q[..., i].astype(np.float64) for i in range(4))
    R = np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)
    M = np.zeros(q.shape[:-1] + (4, 4))
    M[..., :3, :3] = R * s[..., None, :]
    M[..., :3, 3] = t
    M[..., 3, 3] = 1
    return M


def test_skinning_matrices_against_float64():
    rng = np.random.default_rng(5)
    P, J = 3, 7
    q = unit_quats(rng, (P, J))
    t = rng.uniform(-5, 5, (P, J, 3)).astype(np.float32)
    s = rng.uniform(0.5, 2, (P, J, 3)).astype(np.float32)
    B = np.zeros((J, 4, 4), np.float32)
    B[:, :3, :] = rng.uniform(-2, 2, (J, 3, 4))
    B[:, 3, 3] = 1
    got = pb.skinning_matrices(q, t, s, B)
    assert got.shape == (P, J, 4, 4) and got.dtype == np.float32
    want = ref_matrix(q, t, s) @ B.astype(np.float64)
    assert np.max(np.abs(got - want)) < 1e-4
    # no inverse bind: the model matrices themselves
    assert np.max(np.abs(pb.skinning_matrices(q, t) - ref_matrix(q, t, np.ones_like(t)))) < 1e-5


def lbs_ref(M, jt, wt, p, w1):
    h = np.concatenate([p.astype(np.float64), np.full(p.shape[:-1] + (1,), w1)], -1)
    per = np.einsum("vkrc,vc->vkr", M[jt].astype(np.float64)[..., :3, :], h)
    return np.einsum("vk,vkr->vr", wt.astype(np.float64), per)


@pytest.mark.parametrize("K", [1, 4, 8])
def test_skin_against_float64(K):
    rng = np.random.default_rng(K)
    V, J = 1003, 20
    M = np.zeros((J, 4, 4), np.float32)
    M[:, :3, :3] = rng.uniform(-1.5, 1.5, (J, 3, 3))
    M[:, :3, 3] = rng.uniform(-20, 20, (J, 3))
    M[:, 3, 3] = 1
    jt = rng.integers(0, J, (V, K)).astype(np.uint16)
    wt = rng.uniform(0, 1, (V, K)).astype(np.float32)
    wt /= wt.sum(1, keepdims=True)
    p = rng.uniform(-2, 2, (V, 3)).astype(np.float32)
    n = rng.normal(size=(V, 3)).astype(np.float32)
    gp, gn = pb.skin(M, jt, wt, p, n)
    wp, wn = lbs_ref(M, jt, wt, p, 1.0), lbs_ref(M, jt, wt, n, 0.0)
    assert np.max(np.abs(gp - wp)) <= 1e-5 * np.max(np.abs(wp))
    assert np.max(np.abs(gn - wn)) <= 1e-5 * np.max(np.abs(wn))
    # (J, 3, 4) matrices and int64 joints give the same bits; positions only
    assert np.array_equal(pb.skin(np.ascontiguousarray(M[:, :3, :]), jt.astype(np.int64), wt, p), gp)


def test_skin_a_posed_rig():
    """Joint 1 at y = 1 turned 90 degrees about z: a vertex at (0, 2, 0) on it goes to
    (-1, 1, 0); the bind pose's own matrices leave the mesh where it is."""
    parents = [-1, 0]
    rest_t = np.array([[0, 0, 0], [0, 1, 0]], np.float32)
    ident = np.array([[1, 0, 0, 0], [1, 0, 0, 0]], np.float32)
    rest = pb.local_to_model(parents, ident, rest_t)
    B = np.linalg.inv(pb.skinning_matrices(rest.rotations, rest.positions).astype(np.float64))
    s2 = np.sqrt(0.5)
    turned = np.array([[1, 0, 0, 0], [s2, 0, 0, s2]], np.float32)
    model = pb.local_to_model(parents, turned, rest_t)
    M = pb.skinning_matrices(model.rotations, model.positions, inverse_bind=B.astype(np.float32))
    p = np.array([[0, 2, 0], [3, 4, 5]], np.float32)
    out = pb.skin(M, np.array([[1], [0]]), np.ones((2, 1), np.float32), p)
    assert np.allclose(out, [[-1, 1, 0], [3, 4, 5]], atol=1e-6)
    still = pb.skin(pb.skinning_matrices(rest.rotations, rest.positions, inverse_bind=B.astype(np.float32)),
                    np.array([[1], [0]]), np.ones((2, 1), np.float32), p)
    assert np.allclose(still, p, atol=1e-6)


def test_skin_errors():
    M = np.tile(np.eye(4, dtype=np.float32), (3, 1, 1))
    p = np.zeros((5, 3), np.float32)
    jt = np.zeros((5, 4), np.uint16)
    wt = np.full((5, 4), 0.25, np.float32)
    with pytest.raises(ValueError, match="joints"):
        pb.skin(M, jt + 3, wt, p)
    with pytest.raises(ValueError, match="joints"):
        pb.skin(M, jt - 1, wt, p)
    with pytest.raises(ValueError, match="weights"):
        pb.skin(M, jt, np.ones((5, 9), np.float32), p)
    with pytest.raises(ValueError, match="weights"):
        pb.skin(M, jt, wt[:4], p)
    with pytest.raises(ValueError, match="matrices"):
        pb.skin(np.zeros((3, 2, 4), np.float32), jt, wt, p)
    with pytest.raises(ValueError, match="normals"):
        pb.skin(M, jt, wt, p, np.zeros((4, 3), np.float32))
    with pytest.raises(TypeError, match="joints"):
        pb.skin(M, jt.astype(np.float32), wt, p)
    with pytest.raises(ValueError, match="inverse_bind"):
        pb.skinning_matrices(unit_quats(np.random.default_rng(0), (2,)), inverse_bind=M)


def test_skin_releases_the_gil():
    """Another Python thread runs while one long skin() call is in C (test_api.py's
    pattern: with the GIL held the ticker would run only at the call's edges)."""
    rng = np.random.default_rng(9)
    V, J = 1 << 21, 32
    M = np.tile(np.eye(4, dtype=np.float32), (J, 1, 1))
    jt = rng.integers(0, J, (V, 4)).astype(np.int64)
    wt = np.full((V, 4), 0.25, np.float32)
    p = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
    n = rng.uniform(-1, 1, (V, 3)).astype(np.float32)
    state = {"in_call": False, "ticks": 0, "done": False}

    def ticker():
        while not state["done"]:
            if state["in_call"]:
                state["ticks"] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(0.05)
    th = threading.Thread(target=ticker)
    th.start()
    # the call is in C for a few ms: on a loaded machine the ticker may not
    # be scheduled in that window, so up to 5 calls, each counted alone
    # (with the GIL held none would count: the ticker waits out each call)
    per_call = []
    try:
        time.sleep(0.01)
        for _ in range(5):
            state["ticks"] = 0
            state["in_call"] = True
            out, _ = pb.skin(M, jt, wt, p, n)
            state["in_call"] = False
            per_call.append(state["ticks"])
            if per_call[-1] > 1000:
                break
    finally:
        state["done"] = True
        th.join()
        sys.setswitchinterval(old)
    assert np.allclose(out, p, atol=1e-6)
    assert max(per_call) > 1000, per_call
