"""Rotation representations over any leading shape against a float64 numpy reference
written from the definitions (a matrix's columns are the rotated basis vectors; Gram-Schmidt
of the 6D halves), on every supported backend."""
import numpy as np
import pytest

import posebatch as pb
from conftest import ref_abs, ref_angle, ref_conj, ref_log, ref_mul, unit_quats


def ref_matrix(q):
    """Columns q e_c q* / |q|^2 (float64)."""
    q = np.asarray(q, np.float64)
    n2 = (q * q).sum(-1)[..., None]
    cols = []
    for c in range(3):
        e = np.zeros(q.shape[:-1] + (4,))
        e[..., 1 + c] = 1.0
        cols.append(ref_mul(ref_mul(q, e), ref_conj(q))[..., 1:] / n2)
    return np.stack(cols, axis=-1)


def ref_gram_schmidt(r6):
    r6 = np.asarray(r6, np.float64)
    a, b = r6[..., :3], r6[..., 3:]
    x = a / np.linalg.norm(a, axis=-1, keepdims=True)
    y = b - (x * b).sum(-1, keepdims=True) * x
    y /= np.linalg.norm(y, axis=-1, keepdims=True)
    return np.stack([x, y, np.cross(x, y)], axis=-1)


def singular_quats(rng, n):
    """Random rotations mixed with angles 0, pi (about axes and the diagonal) and near them."""
    q = unit_quats(rng, (n,)).astype(np.float64)
    ax = rng.normal(size=(n, 3))
    ax /= np.linalg.norm(ax, axis=-1, keepdims=True)
    ang = np.where(np.arange(n) % 3 == 0, np.pi - 10.0 ** rng.uniform(-7, -2, n),
                   10.0 ** rng.uniform(-8, -3, n))
    near = np.concatenate([np.cos(ang / 2)[:, None], np.sin(ang / 2)[:, None] * ax], -1)
    pick = np.arange(n) % 4 == 1
    q[pick] = near[pick]
    fixed = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, -1, 0], [0, 0, 0, 1],
                      [0, 1, 1, 1] / np.sqrt(3), [-1, 0, 0, 0]], np.float64)
    q[:len(fixed)] = fixed
    return q.astype(np.float32)


@pytest.fixture(params=pb.supported_backends())
def backend(request, restore_backend):
    pb.force_backend(request.param)
    return request.param


def test_quat_matrix_rot6d(backend, rng):
    q = singular_quats(rng, 2001)
    q[::7] *= rng.uniform(0.1, 10.0, size=(len(q[::7]), 1)).astype(np.float32)  # not unit
    m = pb.quat_to_matrix(q)
    assert m.shape == (2001, 3, 3) and m.dtype == np.float32
    assert np.abs(m - ref_matrix(q)).max() <= 4e-7
    r6 = pb.quat_to_rot6d(q)
    assert np.array_equal(r6, np.concatenate([m[..., :, 0], m[..., :, 1]], -1))
    assert np.array_equal(pb.matrix_to_rot6d(m), r6)
    back = pb.matrix_to_quat(m)
    assert ref_angle(back.astype(np.float64), q.astype(np.float64)).max() <= 2e-6
    assert not np.signbit(back[:, 0]).any()
    assert ref_angle(pb.rot6d_to_quat(r6).astype(np.float64), q.astype(np.float64)).max() <= 2e-6


def test_rot6d_gram_schmidt(backend, rng):
    a = rng.normal(size=(3000, 3))
    b = rng.normal(size=(3000, 3))
    r6 = np.concatenate([a, b], -1).astype(np.float32)
    m = pb.rot6d_to_matrix(r6)
    ref = ref_gram_schmidt(r6)
    ca = (a * b).sum(-1) / np.linalg.norm(a, axis=-1) / np.linalg.norm(b, axis=-1)
    sin_t = np.sqrt(np.maximum(1 - ca * ca, 0))
    err = np.abs(m - ref).max(axis=(-1, -2))
    assert (err <= 6e-7 / sin_t).all(), err.max()
    # a rotation: orthonormal to the same condition, det +1
    m64 = m.astype(np.float64)
    orth = np.abs(np.einsum("...ji,...jk->...ik", m64, m64) - np.eye(3)).max(axis=(-1, -2))
    assert (orth <= 2e-6 / sin_t).all(), (orth * sin_t).max()
    assert (np.abs(np.linalg.det(m64) - 1) <= 2e-6 / sin_t).all()


def test_axis_angle(backend, rng):
    q = singular_quats(rng, 1500)
    v = pb.quat_to_axis_angle(q)
    ref = 2 * ref_log(ref_abs(q.astype(np.float64)))
    assert (np.linalg.norm(v - ref, axis=-1) <= 3e-7 * np.linalg.norm(ref, axis=-1) + 1e-30).all()
    assert (np.linalg.norm(v, axis=-1) <= np.pi * (1 + 3e-7)).all()
    assert ref_angle(pb.axis_angle_to_quat(v).astype(np.float64), q.astype(np.float64)).max() <= 4e-6
    # through the matrix and the 6D
    m = pb.axis_angle_to_matrix(v)
    assert np.abs(m - ref_matrix(q)).max() <= 2e-6
    assert ref_angle(pb.matrix_to_quat(m).astype(np.float64), q.astype(np.float64)).max() <= 6e-6
    v2 = pb.matrix_to_axis_angle(m)
    r6 = pb.axis_angle_to_rot6d(v)
    v3 = pb.rot6d_to_axis_angle(r6)
    for w in (v2, v3):
        qw = pb.axis_angle_to_quat(w)
        assert ref_angle(qw.astype(np.float64), q.astype(np.float64)).max() <= 6e-6


def test_leading_shapes_and_order(rng):
    q = unit_quats(rng, (2, 3, 5))
    m = pb.quat_to_matrix(q)
    assert m.shape == (2, 3, 5, 3, 3)
    assert np.array_equal(m.reshape(-1, 3, 3), pb.quat_to_matrix(q.reshape(-1, 4)))
    one = pb.quat_to_matrix(q[0, 0, 0])
    assert one.shape == (3, 3) and np.array_equal(one, m[0, 0, 0])
    xyzw = np.roll(q, -1, axis=-1)
    assert np.array_equal(pb.quat_to_matrix(xyzw, order="xyzw"), m)
    assert np.array_equal(pb.matrix_to_quat(m, order="xyzw"), np.roll(pb.matrix_to_quat(m), -1, -1))
    assert pb.rot6d_to_matrix(np.zeros((0, 6), np.float32)).shape == (0, 3, 3)
    assert pb.matrix_to_rot6d(m.astype(np.float64)).dtype == np.float32


def test_bad_arguments():
    with pytest.raises(ValueError):
        pb.quat_to_matrix(np.zeros((4, 3), np.float32))
    with pytest.raises(ValueError):
        pb.matrix_to_quat(np.zeros((4, 3, 4), np.float32))
    with pytest.raises(ValueError):
        pb.matrix_to_quat(np.zeros((4, 2, 3), np.float32))
    with pytest.raises(ValueError):
        pb.rot6d_to_quat(np.zeros((4, 5), np.float32))
    with pytest.raises(TypeError):
        pb.quat_to_matrix("abc")
    with pytest.raises(ValueError):
        pb.quat_to_matrix(np.zeros((4, 4), np.float32), order="zyxw")
    # degenerate input: the documented results
    assert np.array_equal(pb.quat_to_matrix(np.zeros(4, np.float32)), np.eye(3, dtype=np.float32))
    assert np.array_equal(pb.matrix_to_quat(np.zeros((3, 3), np.float32)),
                          np.array([1, 0, 0, 0], np.float32))
    assert np.array_equal(pb.rot6d_to_matrix(np.zeros(6, np.float32)), np.eye(3, dtype=np.float32))
