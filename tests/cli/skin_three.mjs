// three.js as an independent judge of the skin `posebatch convert X.bvh
// Y.glb` writes: GLTFLoader (headless, in node) loads the file, the skin
// must come out as a Skeleton of every node (names in file order); at the
// rest pose (before any animation) each boneInverse times its bone's world
// matrix must be the identity (1e-5 of the skeleton's size); then an
// AnimationMixer plays the animation at the times of a `posebatch positions`
// CSV of the source and every bone's world position must agree with it
// within 1e-5 of the skeleton's size (the CSV's joints; End Sites are not in
// it). Prints "three-skin: FILE: B bones, F frames, rest max R, position max
// P (relative Q)" and FAIL beyond.
// Usage: PB_THREE_DIR=... node skin_three.mjs FILE.glb POSITIONS.csv
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const dir = process.env.PB_THREE_DIR;
globalThis.self ??= globalThis;
globalThis.ProgressEvent ??= class ProgressEvent {
  constructor(type, init) { this.type = type; Object.assign(this, init); }
};
const three = await import(pathToFileURL(path.join(dir, 'node_modules/three/build/three.module.js')));
const { GLTFLoader } = await import(pathToFileURL(path.join(dir,
  'node_modules/three/examples/jsm/loaders/GLTFLoader.js')));
globalThis.navigator ??= { userAgent: 'node' };

const [file, csvFile] = process.argv.slice(2);
const data = fs.readFileSync(file);
const buf = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(buf, path.dirname(file) + '/', resolve, reject));
const json = gltf.parser.json;
const fail = (msg) => { console.log(`three-skin: ${path.basename(file)}: ${msg} FAIL`); process.exit(1); };
if (!json.skins || json.skins.length !== 1) fail(`${json.skins ? json.skins.length : 0} skins`);
const skeleton = await gltf.parser.getDependency('skin', 0);
if (!(skeleton instanceof three.Skeleton)) fail('the skin is not a Skeleton');
const names = json.nodes.map((n) => n.name);
if (skeleton.bones.length !== names.length ||
    skeleton.bones.some((b, i) => b.name !== three.PropertyBinding.sanitizeNodeName(names[i])))
  fail(`bones ${skeleton.bones.map((b) => b.name).join(' ')} are not the nodes`);
const root = gltf.scene;
root.updateMatrixWorld(true);
let size = 0;
const v = new three.Vector3(), o = new three.Vector3();
skeleton.bones[0].getWorldPosition(o);
skeleton.bones.forEach((b) => { b.getWorldPosition(v); size = Math.max(size, v.distanceTo(o)); });
let rest = 0;
const m = new three.Matrix4(), id = new three.Matrix4();
skeleton.bones.forEach((b, i) => {
  m.multiplyMatrices(b.matrixWorld, skeleton.boneInverses[i]);
  m.elements.forEach((x, k) => { rest = Math.max(rest, Math.abs(x - id.elements[k]) * (k >= 12 ? 1 / size : 1)); });
});
// the animation at the CSV's times
const lines = fs.readFileSync(csvFile, 'utf8').split('\n').filter((l) => l.length);
const head = lines[0].split(',');
const cols = [];
for (let c = 2; c < head.length; c += 3) {
  const name = head[c].slice(0, -2);
  const b = skeleton.bones.find((x) => x.name === three.PropertyBinding.sanitizeNodeName(name));
  if (!b || head[c] !== name + '.x') fail(`column ${c}: ${head[c]}`);
  cols.push(b);
}
const mixer = new three.AnimationMixer(root);
const action = mixer.clipAction(gltf.animations[0]);
action.setLoop(three.LoopOnce);
action.clampWhenFinished = true;
action.play();
let pmax = 0;
lines.slice(1).forEach((line) => {
  const row = line.split(',').map(Number);
  action.reset();
  mixer.setTime(Math.fround(row[1]));
  root.updateMatrixWorld(true);
  cols.forEach((b, j) => {
    b.getWorldPosition(v);
    pmax = Math.max(pmax, Math.hypot(row[2 + 3 * j] - v.x, row[3 + 3 * j] - v.y, row[4 + 3 * j] - v.z));
  });
});
const rel = pmax / size;
const bad = !(rest <= 1e-5) || !(rel <= 1e-5) || lines.length < 2 || cols.length === 0;
console.log(`three-skin: ${path.basename(file)}: ${skeleton.bones.length} bones, ${lines.length - 1} ` +
            `frames, rest max ${rest.toExponential(2)}, position max ${pmax.toExponential(2)} ` +
            `(relative ${rel.toExponential(2)})${bad ? ' FAIL' : ''}`);
process.exit(bad ? 1 : 0);
