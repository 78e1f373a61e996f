// three.js's BVHLoader as an independent BVH reader: loads a BVH file, plays
// its clip with an AnimationMixer at the frame times of a posebatch dump
// (tests/gltf_dump.c on a .bvh, JSON on stdin) and compares every joint's
// rotation with posebatch's reading. Prints "three-bvh: FILE: N times, J
// joints, rotation max R rad" and FAIL above 1e-5 rad.
// Usage: gltf-dump FILE.bvh 0 N SEED | PB_THREE_DIR=... node bvh_three.mjs FILE.bvh
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const dir = process.env.PB_THREE_DIR;
const three = await import(pathToFileURL(path.join(dir, 'node_modules/three/build/three.module.js')));
const { BVHLoader } = await import(pathToFileURL(path.join(dir,
  'node_modules/three/examples/jsm/loaders/BVHLoader.js')));
const file = process.argv[2];
const dump = JSON.parse(fs.readFileSync(0, 'utf8'));
const result = new BVHLoader().parse(fs.readFileSync(file, 'utf8'));
const bones = new Map(result.skeleton.bones.map((b) => [b.name, b]));
const mixer = new three.AnimationMixer(result.skeleton.bones[0]);
// Played once and held at its end: a looping action (the default) wraps the
// last frame's time, the clip's duration, back to frame 0. (A finished
// LoopOnce action pauses, so each sample resets it first.)
const action = mixer.clipAction(result.clip);
action.setLoop(three.LoopOnce);
action.clampWhenFinished = true;
action.play();
let rmax = 0, used = 0;
dump.times.forEach((t, i) => {
  action.reset();
  mixer.setTime(Math.fround(t)); // three keeps key times as float32: sample at the key itself
  for (const jt of dump.joints) {
    const b = bones.get(jt.name);
    if (!b) continue;
    used++;
    const q = jt.values.slice(4 * i, 4 * i + 4), r = b.quaternion;
    const s = Math.sign(q[0] * r.x + q[1] * r.y + q[2] * r.z + q[3] * r.w) || 1;
    const diff = Math.hypot(q[0] - s * r.x, q[1] - s * r.y, q[2] - s * r.z, q[3] - s * r.w);
    rmax = Math.max(rmax, 4 * Math.asin(Math.min(1, diff / 2)));
  }
});
const bad = rmax > 1e-5 || used === 0;
console.log(`three-bvh: ${path.basename(file)}: ${dump.times.length} times, ${dump.joints.length} ` +
            `joints, rotation max ${rmax.toExponential(2)} rad${bad ? ' FAIL' : ''}`);
process.exit(bad ? 1 : 0);
