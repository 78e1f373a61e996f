"""Arguments that fight back (issue 47 part 4, issue 44 item 8): a parents or
mirror list whose item's __index__ empties the list, names holding a NUL, and
lists and root tracks of the wrong length, each with an error that says what
is wrong."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import posebatch as pb
from conftest import CLIP, unit_quats

# ---- a list emptied by its own item's __index__ (used to read freed slots) ----
# Each case runs in a child interpreter: before the fix it died of SIGSEGV.
EVIL = """
import numpy as np
import posebatch as pb

class Evil:
    '''an int whose __index__ empties the list that holds it'''
    def __init__(self, v):
        self.v = v
        self.lst = None
    def __index__(self):
        if self.lst is not None:
            self.lst.clear()
        return self.v

def evil_list(values, at):
    lst = list(values)
    e = Evil(lst[at])
    e.lst = lst
    lst[at] = e
    return lst

rng = np.random.default_rng(7)
q = rng.normal(size=(5, 4, 4))
rot = (q / np.linalg.norm(q, axis=-1, keepdims=True)).astype(np.float32)
pos = rng.normal(size=(5, 4, 3)).astype(np.float32)
parents = [None, 0, 1, 1]
table = [0, 2, 1, 3]
"""

EVIL_CASES = {
    "local_to_model": """
        got = pb.local_to_model(evil_list(parents, 1), rot, pos)
        want = pb.local_to_model(parents, rot, pos)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    """,
    "model_to_local": """
        got = pb.model_to_local(evil_list(parents, 2), rot, pos)
        want = pb.model_to_local(parents, rot, pos)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    """,
    "root_motion_extract": """
        got = pb.root_motion_extract(rot, pos, evil_list(parents, 1), joint=2)
        want = pb.root_motion_extract(rot, pos, parents, joint=2)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    """,
    "root_motion_apply": """
        gp, gr = np.ones((5, 3), np.float32), np.tile(np.float32([1, 0, 0, 0]), (5, 1))
        got = pb.root_motion_apply(rot, pos, gp, gr, evil_list(parents, 1))
        want = pb.root_motion_apply(rot, pos, gp, gr, parents)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    """,
    "mirror": """
        got = pb.mirror(rot, evil_list(table, 1), pos)
        want = pb.mirror(rot, table, pos)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
    """,
    "mirror_table": """
        class EvilPair:
            # a pair whose length empties the names list (freeing its strings)
            # and makes new strings of their sizes, which take their memory
            def __init__(self, names):
                self.names = names
            def __len__(self):
                self.names.clear()
                self.junk = ["".join(["Z"] * n) for n in (4, 7, 8) * 200]
                return 2
            def __getitem__(self, i):
                return ("LeftArm", "RightArm")[i]
        # strings made at run time (not constants that live on elsewhere)
        names = ["".join(p) for p in (("Hi", "ps"), ("Left", "Arm"), ("Right", "Arm"))]
        assert pb.mirror_table(names, [EvilPair(names)]) == [0, 2, 1]
    """,
}


@pytest.mark.parametrize("call", sorted(EVIL_CASES))
def test_list_emptied_by_its_item(call):
    script = EVIL + textwrap.dedent(EVIL_CASES[call]) + "print('ok')\n"
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
    assert r.returncode == 0 and r.stdout.strip() == "ok", \
        f"{call}: exit {r.returncode}\n{r.stdout}\n{r.stderr[-3000:]}"


# ---- names holding a NUL: refused, not cut at the NUL ----
def test_names_with_a_nul_are_refused(rng):
    nul = r"holds a NUL"
    with pytest.raises(ValueError, match=nul):
        pb.mirror_table(["Hips", "LeftArm\0x", "RightArm"])
    with pytest.raises(ValueError, match=nul):
        pb.mirror_table(["Hips", "LeftArm", "RightArm"], {"LeftArm\0": "RightArm"})
    with pytest.raises(ValueError, match=nul):
        pb.mirror_table(["Hips", "LeftArm", "RightArm"], [("LeftArm", "RightArm\0")])
    b = pb.read_bvh(CLIP)
    with pytest.raises(ValueError, match=nul):
        b.root_motion("Hips\0Spine")
    with pytest.raises(ValueError, match=nul):
        b.mirror(pairs={"LeftUpLeg\0": "RightUpLeg"})
    with pytest.raises(ValueError, match=nul):
        pb.retarget(b, b, {"Hips\0x": "Hips"})
    with pytest.raises(ValueError, match=nul):
        pb.retarget_match(b, b, [("Hips", "Hips\0")])
    before = pb.backend()
    with pytest.raises(ValueError, match=nul):
        pb.force_backend("scalar\0avx2")
    assert pb.backend() == before
    # the names without the NUL still work
    assert pb.mirror_table(["Hips", "LeftArm", "RightArm"]) == [0, 2, 1]


# ---- clear errors for bad tables, parents and joints (not "invalid argument") ----
def raises_clearly(match, call, *args, **kw):
    with pytest.raises(ValueError, match=match) as e:
        call(*args, **kw)
    assert "invalid argument" not in str(e.value)


def test_bad_tables_parents_and_joints_say_what_is_wrong(rng):
    F, J = 4, 3
    rot = unit_quats(rng, (F, J))
    pos = rng.normal(size=(F, J, 3)).astype(np.float32)
    raises_clearly(r"mirror\(\): table\[2\] is 5: not a joint index \(0 \.\. 2\)",
                   pb.mirror, rot, [0, 1, 5])
    raises_clearly(r"table\[0\] is -1: not a joint index", pb.mirror, rot, [-1, 1, 2])
    raises_clearly(r"table\[0\] is 1 but table\[1\] is 2: the table must pair joints",
                   pb.mirror, rot, [1, 2, 0])
    raises_clearly(r"table\[2\] is 4294967296: not a joint index", pb.mirror, rot, [0, 1, 2 ** 32])
    raises_clearly(r"table\[2\] is 18446744073709551616: out of range", pb.mirror, rot,
                   [0, 1, 2 ** 64])
    raises_clearly(r"table\[1\] is 7: not a joint index", pb.mirror, rot, np.array([0, 7, 2]))
    with pytest.raises(TypeError, match=r"table\[1\] is None, not an int"):
        pb.mirror(rot, [0, None, 2])
    gp, gr = np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(rot[:, 0])
    for call, extra in ((pb.root_motion_extract, ()), (pb.root_motion_apply, (gp, gr))):
        raises_clearly(r"parents\[0\] is 1: a joint's parent must come before it",
                       call, rot, pos, *extra, [1, None, 0])
        raises_clearly(r"parents\[2\] is 2: a joint's parent", call, rot, pos, *extra,
                       [None, 0, 2])
        raises_clearly(r"parents\[1\] is -5", call, rot, pos, *extra, np.array([-1, -5, 0]))
    raises_clearly(r"root_motion_extract\(\): argument 'joint' is 3; the arrays have 3 joints",
                   pb.root_motion_extract, rot, pos, joint=3)
    raises_clearly(r"argument 'joint' is 99", pb.root_motion_extract, rot, pos, [None, 0, 0],
                   joint=99)
    b = pb.read_bvh(CLIP)
    raises_clearly(rf"Bvh.root_motion\(\): argument 'joint' is {b.num_joints}; the clip has "
                   rf"{b.num_joints} joints", b.root_motion, b.num_joints)
    _, gp, gr = b.root_motion()
    raises_clearly(r"argument 'joint' is 1000", b.apply_root_motion, gp, gr, 1000)


# ---- lists and root tracks of the wrong length: too short and too long ----
@pytest.mark.parametrize("delta", [-1, 1])
def test_wrong_lengths_both_ways(rng, delta):
    F, J = 5, 4
    rot = unit_quats(rng, (F, J))
    pos = rng.normal(size=(F, J, 3)).astype(np.float32)
    parents = [None, 0, 1, 2, 3][:J + delta]
    table = [0, 1, 2, 3, 4][:J + delta]
    entries = rf"has {J + delta} entries; the arrays have {J} joints"
    with pytest.raises(ValueError, match="'table' " + entries):
        pb.mirror(rot, table, pos)
    with pytest.raises(ValueError, match="'parents' " + entries):
        pb.local_to_model(parents, rot, pos)
    with pytest.raises(ValueError, match="'parents' " + entries):
        pb.root_motion_extract(rot, pos, parents)
    gp, gr = np.ascontiguousarray(pos[:, 0]), np.ascontiguousarray(rot[:, 0])
    with pytest.raises(ValueError, match="'parents' " + entries):
        pb.root_motion_apply(rot, pos, gp, gr, parents)
    # a root track of F - 1 or F + 1 frames (positions, rotations, or both)
    n = F + delta
    gp2 = rng.normal(size=(n, 3)).astype(np.float32)
    gr2 = unit_quats(rng, (n,))
    want = rf"root_positions must be \({F}, 3\) and root_rotations \({F}, 4\)"
    for p, r in ((gp2, gr), (gp, gr2), (gp2, gr2)):
        with pytest.raises(ValueError, match=want):
            pb.root_motion_apply(rot, pos, p, r, [None, 0, 1, 2])
    b = pb.read_bvh(CLIP)
    _, bp, br = b.root_motion()
    m = b.num_frames + delta
    bp2 = np.resize(bp, (m, 3))
    br2 = np.resize(br, (m, 4))
    want = rf"must be \({b.num_frames}, 3\) and root_rotations \({b.num_frames}, 4\)"
    for p, r in ((bp2, br), (bp, br2), (bp2, br2)):
        with pytest.raises(ValueError, match=want):
            b.apply_root_motion(p, r)
