// What the campaign compares, and the only normalisations it makes. Each is here, named, with its reason;
// everything else a program can observe is compared as it is.

/** Normalisations of values that are inherently different between two runs, or by the package's design. */
export const NORMALISATIONS = [
  'the case directory (a fresh temporary directory per run) is written <dir>; hex and base64 output (the encoding option) is compared decoded, so that the directory in it can be, and so are whole lines of it in any other text, where Node puts the child\'s stderr in that encoding: the runner\'s own stderr (execSync, execFileSync) and error messages ("Command failed: …"; Node 26, seed 20261222; Node 22, seed 20261223)',
  'pids are compared by type only (the runner records typeof child.pid), and Node\'s warnings\' "(node:PID)" is written (node:<pid>)',
  'in the runner\'s stderr, stack frames ("    at ...") and a native stack trace are left out: the module under test wraps child_process, so its frames differ by design; the error line itself is compared',
  'under register, its own "--import REGISTER" is left out of the arguments fork passes on (process.execArgv); when the case forks, the reference it is compared with runs with an --import of an empty module (scripts/fuzz/noop.mjs), left out the same way, since a forked child inherits --import and Node then loads its main module as an ES module',
  "after a sync call that failed with EMFILE or ENFILE, eventpoll descriptors are not counted: Node 20's spawnSync then leaves its private loop's epoll descriptor open (with 1-3 descriptors free: libuv's uv_loop_init failing after its epoll_create1; not on Node 22, 24 or 26), which @forklab/spawn does not copy",
  'after an async spawn that failed with EMFILE or ENFILE, socket descriptors are not counted: child_process returns early then and leaves the parent ends of the stdio pipes open (Node 24), which @forklab/spawn closes',
  "the inspector's lines (a Node child sent SIGUSR1 starts it) are left out of the runner's stderr and of every text the call returned or streamed: its URL holds a random id, and whether port 9229 was free depends on the other cases running at the time",
  'during the call, descriptors of kind pidfd are not counted, nor after it while no exit of the child was seen: @forklab/spawn reaps each running child through a pidfd (README, "What differs": reaping; Node 20, seed 20261241)',
  "a flood step writes for a time: its runs of lines, one line its shell repeats between them, and both streams' runs interleaved where they lead to one place, are compared as present (floodLines; Node 26, seed 20261230)",
  "after a spawn that failed, the runner's kill timer at 0 ms is compared after the call's events: it and the failed child's 'close' both come in the loop's first turn, the timer first when a millisecond has passed (parentKillAfterFailedSpawn; Node 22, seed 20261229)",
  "a chatty step's long runs of bytes in the runner's own stdout and stderr (where the child's stdio is the runner's) are compared as present: how much of them reached the runner differed between runs of child_process itself (chattyInRunner; Node 22, seed 20261229)",
  "after a sync call that ran over maxBuffer (ENOBUFS), each output is compared up to maxBuffer bytes and whether there was more, and the child's status and signal as one value: the read that ran over it holds whatever the child had written by then, and the child may end before the kill that follows (cutAtMaxBuffer; Node 26, seed 20261230; Debian 11, seed 20261236)",
  "when the call's AbortSignal was aborted before it, Node starts the child and kills it at once: what the child wrote first depends on timing, in child_process too, and is compared as one value wherever the observation holds it, the runner's own stdout, stderr and files included where the case's stdio leads there (killedAtStart; Node 26, seed 20261211); so is how it ended, killed or on its own first (Node 22, seed 20261229)",
  "uncaught SyntaxErrors of JSON.parse (an IPC channel fed lines that are not JSON) are compared as one entry, 'a line on the IPC channel was not JSON': which lines fail depends on how the child's writes arrive in reads (the channel parses the lines of a read until one throws, and the rest of that read is lost), and two runs through child_process itself disagree on it (Node 22, seed 20261209)",
];

/** What an uncaught JSON.parse failure of an IPC channel is compared as. */
export const IPC_NOT_JSON = { name: 'SyntaxError', message: '<a line on the IPC channel was not JSON>' };

const isJsonParseError = (e) => e !== null && typeof e === 'object' && e.name === 'SyntaxError' && typeof e.message === 'string' && /\bJSON\b/.test(e.message);

/** The uncaught errors with every JSON.parse failure made one IPC_NOT_JSON entry, at the place of the first. */
function withIpcParseFailuresAsOne(uncaught) {
  const at = uncaught.findIndex(isJsonParseError);
  if (at < 0) return uncaught;
  const rest = uncaught.filter((e) => !isJsonParseError(e));
  return [...rest.slice(0, at), IPC_NOT_JSON, ...rest.slice(at)];
}

const INSPECTOR_LINE = /^(Debugger listening on ws:\/\/|For help, see: https:\/\/nodejs\.org\/\S*$|Starting inspector on \S+ failed: |Debugger ending on ws:\/\/)/;

/** Text without the inspector's lines, wherever a forked child's stderr reached (a string, or a value the
 * runner recorded as { s }, { b }, { latin1 } ...). */
function withoutInspector(v) {
  if (typeof v === 'string')
    return v.includes('inspector') || v.includes('Debugger ')
      ? v
          .split('\n')
          .filter((l) => !INSPECTOR_LINE.test(l))
          .join('\n')
      : v;
  if (Array.isArray(v)) return v.map(withoutInspector);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withoutInspector(x)]));
  return v;
}

/** A flood step writes for a time, not a number of lines: runs of its lines are compared as present, and so are
 * runs of one line written between them, each time the same (a shell's "echo: I/O error" on stderr for every
 * line it could not write to a stdout the child closed first: Node 22, seed 20261209), and runs of both streams'
 * lines where both lead to one place, however they interleave (Node 26, seed 20261230: stdout and stderr both the
 * runner's stdout). A flood writes both streams at one rate, so which of them runs over exec's maxBuffer first is a
 * tie decided by the order of reads: the error's message names either (Node 26, seed 20261230). */
export function floodLines(o) {
  const text = JSON.stringify(o)
    .replace(/q{8,}(?:(?:\\n)+q*)*/g, '<flood stdout lines>')
    .replace(/j{8,}(?:(?:\\n)+j*)*/g, '<flood stderr lines>')
    .replace(/"(?:stdout|stderr) maxBuffer length exceeded/g, '"<stdout or stderr> maxBuffer length exceeded');
  return JSON.parse(
    withoutRepeatedRuns(text).replace(/(?:<flood (?:stdout|stderr) lines>){2,}/g, (run) =>
      run.includes('stdout') && run.includes('stderr') ? '<flood stdout and stderr lines>' : run.slice(0, run.indexOf('>') + 1),
    ),
  );
}

/** Each run of one piece repeated right after itself, the piece ending with a flood marker and holding no other
 * marker and no quote (inside one JSON string), written once. In one pass over the pieces between markers: a
 * regular expression with a backreference to a lazily grown prefix did the same in time quadratic in the text, and
 * a chatty step's hundreds of KiB beside a flood held a case for minutes (Node 26, seed 20261230). */
function withoutRepeatedRuns(text) {
  const parts = text.split(/(<flood (?:stdout|stderr) lines>)/);
  const units = [];
  for (let i = 0; i + 1 < parts.length; i += 2) units.push(parts[i] + parts[i + 1]);
  const tail = parts.length % 2 ? parts[parts.length - 1] : '';
  const out = [];
  for (let i = 0; i < units.length; ) {
    const u = units[i];
    out.push(u);
    let j = i + 1;
    // the piece repeated is the next one whole (it holds one marker, at its end), and u must end with it
    const x = units[j];
    if (x !== undefined && !x.includes('"') && u.endsWith(x)) while (units[j] === x) j++;
    i = j;
  }
  return out.join('') + tail;
}

/** What a child wrote before a kill at its start is compared as this: see killedAtStart. */
export const WRITTEN_BEFORE_THE_KILL = '<what the child wrote before it was killed at its start>';

/** Where a child's descriptors lead outside its pipes, by the case's stdio: the runner's own stdout or stderr (inherit
 * at 1 or 2, fd:1, fd:2, stream:stdout) and the files and socket the runner reads back. */
export function outsideWrites(stdio) {
  const list = stdio === undefined || stdio === null ? [] : Array.isArray(stdio) ? stdio : [stdio, stdio, stdio];
  const at = new Set();
  list.forEach((e, i) => {
    if ((e === 'inherit' && i === 1) || e === 'fd:1' || e === 'stream:stdout') at.add('stdout');
    if ((e === 'inherit' && i === 2) || e === 'fd:2') at.add('stderr');
    if (e === 'fd:file') at.add('fd-file');
    if (e === 'stream:file') at.add('stream-file');
    if (e === 'stream:socket') at.add('socket');
  });
  return at;
}

/** How the child ended, written `as`: the code and signal of 'exit' and 'close', child.exitCode and child.signalCode. */
function endingAsOne(o, as) {
  if (Array.isArray(o.events)) for (const e of o.events) if (Array.isArray(e) && (e[0] === 'exit' || e[0] === 'close')) e.splice(1, 2, as, as);
  if (o.child && typeof o.child === 'object') for (const k of ['exitCode', 'signalCode']) if (k in o.child) o.child[k] = as;
}

/** Output read up to a cut at maxBuffer: its first maxBuffer bytes (in `enc`) and whether there was more; where the
 * child writes to both pipes (`both`), one value. */
function cutAt(text, maxBuffer, both, enc = 'latin1') {
  if (both) return READ_BEFORE_MAX_BUFFER;
  const b = Buffer.from(text, enc);
  return b.length <= maxBuffer ? text : `${b.subarray(0, maxBuffer).toString(enc)}${PAST_MAX_BUFFER}`;
}

/** How a child killed at its start ended is compared as this: see killedAtStart. */
export const ENDED_AT_START = '<killed at its start, or ended on its own first>';

/** A call whose AbortSignal was aborted before it: Node starts the child and kills it at once, so how much the
 * child wrote first depends on timing, in child_process too (Node 26, seed 20261211: two lines of its output, one,
 * or none), and so does how it ended: a short script can end on its own before the kill reaches it (Node 22, seed
 * 20261229: a three-line script exited 1 in 28-39 of 300 calls through child_process alone, and was killed in the
 * rest). Its output, wherever the observation holds it (the streams, exec's callback and its error, and, by the
 * case's stdio, the runner's own stdout or stderr and the files it reads back), is one value; so is its ending
 * (the code and signal of 'exit' and 'close', child.exitCode and child.signalCode). The events and their order,
 * the error and everything else are compared as they are. */
export function killedAtStart(o, stdio) {
  const out = structuredClone(o);
  endingAsOne(out, ENDED_AT_START);
  for (const k of ['stdout', 'stderr']) if (out.streams && typeof out.streams[k] === 'string') out.streams[k] = WRITTEN_BEFORE_THE_KILL;
  for (const place of outsideWrites(stdio)) {
    if ((place === 'stdout' || place === 'stderr') && typeof out[place] === 'string') out[place] = WRITTEN_BEFORE_THE_KILL;
    else if (out.files && typeof out.files[place] === 'string') out.files[place] = WRITTEN_BEFORE_THE_KILL;
  }
  if (Array.isArray(out.callback)) {
    for (const i of [1, 2]) if (out.callback[i] !== null && out.callback[i] !== undefined) out.callback[i] = WRITTEN_BEFORE_THE_KILL;
    const e = out.callback[0];
    if (e && typeof e === 'object') for (const k of ['stdout', 'stderr']) if (k in e) e[k] = WRITTEN_BEFORE_THE_KILL;
  }
  return out;
}

/** Every text of an observation with each whole line of hex or base64 (the case's encoding; 8 characters or more)
 * decoded: Node writes the child's stderr in the call's encoding into the runner's own stderr (execSync,
 * execFileSync) and into error messages ("Command failed: CMD\n" and the stderr), where the case directory cannot be
 * seen. Decoding is one-to-one, so it hides no difference but the directory's. */
export function withEncodedLinesDecoded(obs, encoding) {
  if (encoding !== 'hex' && encoding !== 'base64') return obs;
  const line = (l) => {
    if (l.length < 8) return l;
    const b = Buffer.from(l, encoding);
    return b.length > 0 && b.toString(encoding) === l ? `<${encoding}> ${JSON.stringify(b.toString('latin1'))}` : l;
  };
  const walk = (v) => {
    if (typeof v === 'string') return v.split('\n').map(line).join('\n');
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(obs);
}

/** After a spawn that failed (no 'spawn' event), the runner's kill timer at 0 ms and the child's 'close' both come
 * in the event loop's first turn, the timer first when a millisecond has passed since it was set: 1 of 300 calls
 * under register, 0 of 600 through child_process in one measurement, and every time in one campaign case through
 * register (Node 22, seed 20261229, a directory run as a command under `ulimit -n 64`). The timer's event is
 * compared after the others there. */
function parentKillAfterFailedSpawn(o) {
  if (!Array.isArray(o.events) || o.events.some((e) => Array.isArray(e) && e[0] === 'spawn')) return;
  const kills = o.events.filter((e) => Array.isArray(e) && e[0] === 'parent-kill');
  if (kills.length) o.events = [...o.events.filter((e) => !kills.includes(e)), ...kills];
}

/** A chatty step's long run of bytes in the runner's own stdout or stderr is compared as this: see chattyInRunner. */
export const CHATTY_BYTES = "<a chatty step's bytes>";

/** A chatty step writes hundreds of KiB; where the child's stdio is the runner's own (fork's default, 'inherit'),
 * how much of it the runner's stdout or stderr held came out different between runs of child_process itself
 * (147,134 and 205,770 characters of stderr: Node 22, seed 20261229, a fork of a 200 KiB step), so a run of 64 or
 * more of its bytes there is compared as present. The pipes the call makes (the streams, exec's callback) are
 * compared byte for byte as before. */
function chattyInRunner(o) {
  for (const k of ['stdout', 'stderr']) if (typeof o[k] === 'string') o[k] = o[k].replace(/o{64,}|e{64,}/g, CHATTY_BYTES);
}

/** What a sync call that ran over maxBuffer returned beyond maxBuffer is compared as this: see cutAtMaxBuffer. */
export const PAST_MAX_BUFFER = '<and the rest of the read that ran over maxBuffer>';

/** A sync call that ran over maxBuffer (ENOBUFS) returns what it had read by then, and the read that ran over it
 * holds whatever the child had written so far: two lines written a few µs apart came in one read or in two, so one
 * side returned one line and the other both, three times each (Node 26, seed 20261230: spawnSync, maxBuffer 1).
 * Node promises only that the output is cut short. Each output is compared up to maxBuffer bytes, and whether there
 * was more, in the runner's own stderr too where execSync writes it; and the child's status and signal are one
 * value, since the kill for maxBuffer comes after that read and a short child may have ended first (Debian 11,
 * Node 22, seed 20261236: "/bin/sh: 1: " and SIGTERM on one side, the whole line and 127 on the other). */
function cutAtMaxBuffer(o, maxBuffer, both) {
  if (typeof maxBuffer !== 'number' || !Number.isFinite(maxBuffer)) return;
  // maxBuffer counts both pipes together: where the child writes to both, how the reads before the cut split between
  // them is timing too (Node 20, seed 20261241: a flood's stdout read twice and its stderr not at all, or each once),
  // so each output is one value and the child's stderr is left out of the runner's own
  const cut = (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const [key] = Object.keys(v);
    if (key === undefined || typeof v[key] !== 'string') return v;
    return { [key]: cutAt(v[key], maxBuffer, both, key === 's' ? 'utf8' : 'latin1') };
  };
  for (const holder of [o.ret, o.ret?.error, o.threw]) {
    if (holder === null || typeof holder !== 'object') continue;
    // execSync and execFileSync write the child's stderr, as read, into the runner's own: cut there too
    const err = holder.stderr;
    if (typeof o.stderr === 'string' && err && typeof err === 'object' && typeof (err.b ?? err.s) === 'string') {
      const text = err.b ?? Buffer.from(err.s, 'utf8').toString('latin1');
      if (text && o.stderr.includes(text)) o.stderr = o.stderr.replace(text, both ? '' : cutAt(text, maxBuffer, false));
    }
    for (const k of ['stdout', 'stderr']) if (k in holder) holder[k] = cut(holder[k]);
    if (Array.isArray(holder.output)) holder.output = holder.output.map(cut);
    // and the kill for maxBuffer raced with the child's own end: killed, or ended first
    for (const k of ['status', 'signal']) if (k in holder) holder[k] = ENDED_OR_KILLED_FOR_MAX_BUFFER;
  }
}

/** exec and execFile over maxBuffer: the callback's output is cut at maxBuffer exactly (compared as it is), but the
 * runner's own 'data' listeners saw whole reads, and the read that ran over held whatever the child had written by
 * then (Debian 11, Node 22, seed 20261237, case 189: "in[" on one side, "in[parent-data\n]\n" on the other). The streams
 * are compared up to maxBuffer bytes and whether there was more; and, as after a sync call, how the child ended
 * (the kill follows that read) is one value. */
function streamsAtMaxBuffer(o, maxBuffer, both) {
  if (typeof maxBuffer !== 'number' || !Number.isFinite(maxBuffer) || !o.streams) return;
  // where the child writes to both pipes, how much of each the listeners saw before the kill is timing too (Node 26,
  // seed 20261245: a flood's stdout past maxBuffer and its stderr short of it, or the other way): one value each
  // (the streams are latin1 text, or their decoded hex or base64 as latin1)
  for (const k of ['stdout', 'stderr']) {
    const v = o.streams[k];
    if (typeof v === 'string') o.streams[k] = cutAt(v, maxBuffer, both);
    else if (v && typeof v === 'object') for (const enc of Object.keys(v)) if (typeof v[enc] === 'string') v[enc] = cutAt(v[enc], maxBuffer, both);
  }
  endingAsOne(o, ENDED_OR_KILLED_FOR_MAX_BUFFER);
}

/** What a sync call over maxBuffer read from a child that writes to both pipes is compared as: see cutAtMaxBuffer. */
export const READ_BEFORE_MAX_BUFFER = '<what was read before maxBuffer was passed>';

/** The child writes to both stdout and stderr: a step that writes both, or one of each. */
function writesBoth(kase) {
  const steps = kase?.steps ?? [];
  const has = (k) => steps.some((s) => k in s);
  return has('flood') || has('chatty') || ((has('out') || has('ident')) && has('err'));
}

/** How a sync child that ran over maxBuffer ended is compared as this: see cutAtMaxBuffer. */
export const ENDED_OR_KILLED_FOR_MAX_BUFFER = '<killed for maxBuffer, or ended on its own first>';

/** An observation with the run's own directory replaced; pidfds left out of the descriptors counted during the call;
 * and, by what the case does (kase, when given), a flood's lines and the output of a child killed at its start. */
export function normalise(obs, dir, register, kase) {
  let text = JSON.stringify(withEncodedLinesDecoded(obs, kase?.opts.encoding));
  if (register) text = text.split(`"--import",${JSON.stringify(register)},`).join('');
  text = text
    .split(dir)
    .join('<dir>')
    .replace(/\(node:\d+\)/g, '(node:<pid>)');
  const o = withoutInspector(JSON.parse(text));
  delete o.mode;
  if (typeof o.stderr === 'string') {
    o.stderr = o.stderr
      .replace(/node\[\d+\]/g, 'node[<pid>]')
      .replace(/\n----- Native stack trace -----[\s\S]*$/, '\n')
      .split('\n')
      .filter((l) => !/^\s+at /.test(l) && !INSPECTOR_LINE.test(l))
      .join('\n');
  }
  if (o.during?.fds) delete o.during.fds.pidfd;
  // after the call too, while the child is still running (no exit seen: a worker that ended first, a child still
  // reading its IPC channel at the runner's time limit): its pidfd is the same inherent descriptor
  const exited = Array.isArray(o.events) && o.events.some((e) => Array.isArray(e) && (e[0] === 'exit' || e[0] === 'close'));
  if (!exited && o.after?.fds && o.ret === null && o.threw === null) delete o.after.fds.pidfd;
  if (Array.isArray(o.uncaught)) o.uncaught = withIpcParseFailuresAsOne(o.uncaught);
  const failedSpawn =
    Array.isArray(o.events) && !o.events.some((e) => e[0] === 'spawn') && o.events.some((e) => e[0] === 'error' && (e[1]?.code === 'EMFILE' || e[1]?.code === 'ENFILE'));
  if (failedSpawn) for (const when of [o.during, o.after]) if (when?.fds) delete when.fds.socket;
  const syncCode = o.ret?.error?.code ?? (o.ret === null ? o.threw?.code : undefined);
  if (syncCode === 'EMFILE' || syncCode === 'ENFILE') for (const when of [o.during, o.after]) if (when?.fds) delete when.fds.eventpoll;
  if (syncCode === 'ENOBUFS') cutAtMaxBuffer(o, kase?.opts.maxBuffer, writesBoth(kase));
  if (Array.isArray(o.callback) && o.callback[0]?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') streamsAtMaxBuffer(o, kase?.opts.maxBuffer, writesBoth(kase));
  if (kase?.steps.some((s) => 'chatty' in s)) chattyInRunner(o);
  if (kase?.parent?.kill?.afterMs === 0) parentKillAfterFailedSpawn(o);
  const flooded = kase?.steps.some((s) => 'flood' in s) ? floodLines(o) : o;
  return kase?.opts.signal === 'abortedBefore' ? killedAtStart(flooded, kase.opts.stdio) : flooded;
}

function flatten(v, path, out) {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    for (const k of Object.keys(v)) flatten(v[k], path ? `${path}.${k}` : k, out);
    if (Object.keys(v).length === 0) out.set(path, '{}');
  } else {
    out.set(path, JSON.stringify(v));
  }
  return out;
}

/** The top-level fields compared, each a unit a difference is reported in. `runnerFailed` and `noResult` are the
 * runner's own: an exception that reached it, and a process that wrote no observation at all. */
export const FIELDS = [
  'threw',
  'ret',
  'events',
  'callback',
  'streams',
  'child',
  'uncaught',
  'during',
  'after',
  'files',
  'done',
  'workerExit',
  'status',
  'stdout',
  'stderr',
  'runnerFailed',
  'noResult',
];

/** What a difference in the runner's own fields means, for the report: null for any other field. */
export function runnerNote(field) {
  if (field === 'noResult') return 'a run wrote no observation (its process was killed at its time limit or died before the runner could write): compare its status and stderr';
  if (field.startsWith('runnerFailed')) return 'the runner itself failed in a run (an exception outside the call): what that run observed stops there';
  return null;
}

/** The fields (dotted paths) on which the subject's observations and the reference's have no value in common. */
export function differences(refs, subs) {
  const flat = (o) => flatten(o, '', new Map());
  const r = refs.map(flat);
  const s = subs.map(flat);
  const keys = new Set([...r.flatMap((m) => [...m.keys()]), ...s.flatMap((m) => [...m.keys()])]);
  const out = [];
  for (const k of keys) {
    const rv = new Set(r.map((m) => m.get(k)));
    const sv = new Set(s.map((m) => m.get(k)));
    if (![...sv].some((v) => rv.has(v))) out.push({ field: k, reference: [...rv], subject: [...sv] });
  }
  return out.sort((a, b) => a.field.localeCompare(b.field));
}
