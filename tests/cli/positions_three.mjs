// three.js as an independent judge of `posebatch positions`: BVHLoader reads
// the BVH, an AnimationMixer poses the skeleton at each CSV row's time, and
// every joint's bone.getWorldPosition / getWorldQuaternion is compared with
// the CSV (written with --rotations). MODE "three": the CSV was written with
// --three (root channels added to the OFFSET, as BVHLoader does); MODE
// "posebatch": the default (channels replace the OFFSET), which is three.js's
// pose shifted by the root's OFFSET (read from the file's first OFFSET line).
// Positions must agree within 1e-5 of the skeleton's size (the largest
// distance of a joint from the root in the first frame), rotations within
// 1e-5 rad. Prints "three-positions: FILE MODE: F frames, J joints, position
// max P (relative R), rotation max A rad" and FAIL beyond.
// Usage: PB_THREE_DIR=... node positions_three.mjs FILE.bvh OUT.csv MODE
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const dir = process.env.PB_THREE_DIR;
const three = await import(pathToFileURL(path.join(dir, 'node_modules/three/build/three.module.js')));
const { BVHLoader } = await import(pathToFileURL(path.join(dir,
  'node_modules/three/examples/jsm/loaders/BVHLoader.js')));
const [file, csvFile, mode] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');
const result = new BVHLoader().parse(text);
const bones = new Map(result.skeleton.bones.map((b) => [b.name, b]));
const root = result.skeleton.bones[0];
const mixer = new three.AnimationMixer(root);
const action = mixer.clipAction(result.clip);
action.setLoop(three.LoopOnce);
action.clampWhenFinished = true;
action.play();

// the root OFFSET: the default convention's shift from three.js's
let shift = [0, 0, 0];
if (mode === 'posebatch') {
  const m = /OFFSET\s+(\S+)\s+(\S+)\s+(\S+)/.exec(text);
  shift = [parseFloat(m[1]), parseFloat(m[2]), parseFloat(m[3])];
} else if (mode !== 'three') {
  console.log(`unknown mode ${mode}`);
  process.exit(2);
}

// the CSV: frame,time, then J.x,J.y,J.z,J.qw,J.qx,J.qy,J.qz per joint (the
// joint names of these clips hold no comma or quote)
const lines = fs.readFileSync(csvFile, 'utf8').split('\n').filter((l) => l.length);
const head = lines[0].split(',');
const names = [];
for (let c = 2; c < head.length; c += 7) {
  const sfx = ['.x', '.y', '.z', '.qw', '.qx', '.qy', '.qz'];
  const name = head[c].slice(0, -2);
  sfx.forEach((s, k) => { if (head[c + k] !== name + s) throw new Error(`column ${c + k}: ${head[c + k]}`); });
  if (!bones.has(name)) throw new Error(`three.js has no bone ${name}`);
  names.push(name);
}
const v = new three.Vector3(), q = new three.Quaternion();
let size = 0, pmax = 0, rmax = 0;
lines.slice(1).forEach((line, i) => {
  const row = line.split(',').map(Number);
  if (row[0] !== i) throw new Error(`row ${i + 1}: frame ${row[0]}`);
  action.reset();
  mixer.setTime(Math.fround(row[1])); // three keeps key times as float32
  root.updateMatrixWorld(true);
  names.forEach((name, j) => {
    const b = bones.get(name), a = row.slice(2 + 7 * j, 9 + 7 * j);
    b.getWorldPosition(v);
    if (i === 0) size = Math.max(size, v.distanceTo(root.getWorldPosition(new three.Vector3())));
    pmax = Math.max(pmax, Math.hypot(a[0] + shift[0] - v.x, a[1] + shift[1] - v.y, a[2] + shift[2] - v.z));
    b.getWorldQuaternion(q);
    const s = Math.sign(a[3] * q.w + a[4] * q.x + a[5] * q.y + a[6] * q.z) || 1;
    const d = Math.hypot(a[3] - s * q.w, a[4] - s * q.x, a[5] - s * q.y, a[6] - s * q.z);
    rmax = Math.max(rmax, 4 * Math.asin(Math.min(1, d / 2)));
  });
});
const rel = pmax / size;
const bad = !(rel <= 1e-5) || !(rmax <= 1e-5) || names.length === 0 || lines.length < 2;
console.log(`three-positions: ${path.basename(file)} ${mode}: ${lines.length - 1} frames, ` +
            `${names.length} joints, position max ${pmax.toExponential(2)} (relative ` +
            `${rel.toExponential(2)}), rotation max ${rmax.toExponential(2)} rad${bad ? ' FAIL' : ''}`);
process.exit(bad ? 1 : 0);
