// bench:env's prototype of the JavaScript side of a cheaper environment path (never shipped; the design is in
// docs/spawn.md, "Measured"): when may a spawn hand the child the C environ (filtered in C as child_process on
// Node 20-24 filters process.env, env-proto.c) instead of the envPairs child_process copies from process.env,
// with exactly the same environment as the result? Every check below reads nothing a program can observe: no
// getter, no Proxy trap, no write.
import { isMainThread } from 'node:worker_threads';
import { types } from 'node:util';

const PROBE = Symbol('forklab-env-probe');
let realEnv = null;
const notReal = new WeakSet();

/** Whether obj is Node's own process.env of the main thread: an object whose setter converts its key to a
 * string (Node's interceptor), so that setting a symbol throws; a plain object (a replaced process.env) takes
 * it, and it is removed at once. Asked once per object. */
function isNodeEnv(obj) {
  if (obj === realEnv) return true;
  if (obj === null || typeof obj !== 'object' || notReal.has(obj) || types.isProxy(obj)) return false;
  try {
    if (Reflect.set(obj, PROBE, 1)) delete obj[PROBE];
  } catch {
    realEnv = obj;
    return true;
  }
  notReal.add(obj);
  return false;
}

/** No enumerable string key anywhere on the prototype chain of process.env (for..in would copy it). Node's
 * env object has a prototype of its own (its template's: only `constructor`), then Object.prototype. */
function cleanChain(env) {
  for (let o = Object.getPrototypeOf(env); o !== null; o = Object.getPrototypeOf(o)) {
    if (types.isProxy(o) || Object.keys(o).length > 0) return false;
  }
  return true;
}

const UNKNOWN = Symbol('unknown');

/** The value child_process would read as options.env, without running a getter: UNKNOWN when that cannot be
 * told without running user code (an accessor or a Proxy on the way, options that Node would refuse). */
function envOption(options) {
  if (options === undefined) return undefined;
  if (options === null) return UNKNOWN; // child_process refuses it: left to child_process
  if (typeof options !== 'object' || Array.isArray(options)) return UNKNOWN;
  for (let o = options; o !== null; o = Object.getPrototypeOf(o)) {
    if (types.isProxy(o)) return UNKNOWN;
    const d = Object.getOwnPropertyDescriptor(o, 'env');
    if (d) return 'value' in d ? d.value : UNKNOWN;
  }
  return undefined;
}

const permissionFlag = (a) => a.startsWith('--permission') || a.startsWith('--experimental-permission') || a.startsWith('--allow-');

/** Every condition under which the environ path gives the child what child_process's copy gives, on Node 20-24. */
export function environPathAllowed(options) {
  if (!isMainThread) return false; // a worker's process.env is its own copy, not environ
  const env = process.env;
  if (!isNodeEnv(env) || !cleanChain(env)) return false;
  if (process.permission !== undefined || process.execArgv.some(permissionFlag)) return false; // 22/24 add flags to NODE_OPTIONS
  const v = envOption(options);
  // `options.env || process.env`: any falsy value means process.env; so does process.env itself, given explicitly
  return v === env || (v !== UNKNOWN && !v);
}
