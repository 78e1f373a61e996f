// three.js as an independent sampler: loads a glTF file with GLTFLoader
// (headless, in node), plays animation ANIM with an AnimationMixer at the
// times of a posebatch dump (tests/gltf_dump.c, JSON on stdin) and prints
// "three: ANIM: N times, C channels, rotation max R rad, translation/scale
// max D" plus "FAIL" when a rotation differs by more than 1e-5 rad or a
// translation/scale by more than 1e-5 relative.
// Usage: gltf-dump FILE ANIM N SEED | NODE_PATH=... node gltf_three.mjs FILE ANIM
// (three is resolved from PB_THREE_DIR/node_modules/three).
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const dir = process.env.PB_THREE_DIR;
globalThis.self ??= globalThis; // GLTFLoader looks up self.URL for images
globalThis.ProgressEvent ??= class ProgressEvent { // FileLoader reports progress (data: URIs)
  constructor(type, init) { this.type = type; Object.assign(this, init); }
};
const three = await import(pathToFileURL(path.join(dir, 'node_modules/three/build/three.module.js')));
const { GLTFLoader } = await import(pathToFileURL(path.join(dir,
  'node_modules/three/examples/jsm/loaders/GLTFLoader.js')));
globalThis.navigator ??= { userAgent: 'node' };
console.warn = () => {};
console.error = () => {}; // textures cannot load headless; animation does not need them

const [file, animArg] = process.argv.slice(2);
const anim = Number(animArg);
const dump = JSON.parse(fs.readFileSync(0, 'utf8'));
const data = fs.readFileSync(file);
const buf = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(buf, path.dirname(file) + '/', resolve, reject));
const byNode = new Map();
gltf.scene.traverse((o) => {
  const a = gltf.parser.associations.get(o);
  if (a && a.nodes !== undefined && !byNode.has(a.nodes)) byNode.set(a.nodes, o);
});
const clip = gltf.animations[anim];
const mixer = new three.AnimationMixer(gltf.scene);
const action = mixer.clipAction(clip);
action.play();
let rmax = 0, vmax = 0, used = 0;
dump.times.forEach((t, i) => {
  mixer.setTime(t);
  for (const ch of dump.channels) {
    const o = byNode.get(ch.node);
    if (!o || ch.path === 'weights') continue;
    used++;
    if (ch.path === 'rotation') {
      const q = ch.values.slice(4 * i, 4 * i + 4);
      const r = o.quaternion;
      const s = Math.sign(q[0] * r.x + q[1] * r.y + q[2] * r.z + q[3] * r.w) || 1;
      const diff = Math.hypot(q[0] - s * r.x, q[1] - s * r.y, q[2] - s * r.z, q[3] - s * r.w);
      const ang = 4 * Math.asin(Math.min(1, diff / 2));
      if (ang > rmax && process.env.PB_THREE_DEBUG)
        console.log(t, ch.node, q, [r.x, r.y, r.z, r.w], ang);
      rmax = Math.max(rmax, ang);
    } else {
      const v = ch.values.slice(3 * i, 3 * i + 3);
      const r = ch.path === 'translation' ? o.position : o.scale;
      [r.x, r.y, r.z].forEach((x, k) =>
        vmax = Math.max(vmax, Math.abs(x - v[k]) / Math.max(1, Math.abs(v[k]))));
    }
  }
});
const bad = rmax > 1e-5 || vmax > 1e-5 || used === 0;
console.log(`three: ${path.basename(file)} animation ${anim}: ${dump.times.length} times, ` +
            `${dump.channels.length} channels, rotation max ${rmax.toExponential(2)} rad, ` +
            `translation/scale max ${vmax.toExponential(2)}${bad ? ' FAIL' : ''}`);
process.exit(bad ? 1 : 0);
