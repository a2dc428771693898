import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLine, formatCommand, PROTOCOL_VERSION } from '../src/runner/protocol.js';

test('parses every message type', () => {
  const hello = parseLine('{"type":"hello","protocol":1,"probe":"0.1.0","case":"spawn","pid":42}');
  assert.deepEqual(hello, { ok: true, message: { type: 'hello', protocol: 1, probe: '0.1.0', case: 'spawn', pid: 42 } });
  const info = parseLine('{"type":"info","rssMb":128,"thp":"on","ok":true,"x":null}');
  assert.deepEqual(info, { ok: true, message: { type: 'info', fields: { rssMb: 128, thp: 'on', ok: true, x: null } } });
  const s = parseLine('{"type":"samples","series":"fork-exec","warmup":false,"ns":[10,20],"minflt":[1,2]}');
  assert.deepEqual(s, { ok: true, message: { type: 'samples', series: 'fork-exec', warmup: false, ns: [10, 20], columns: { minflt: [1, 2] } } });
  assert.deepEqual(parseLine('{"type":"ready"}'), { ok: true, message: { type: 'ready' } });
  assert.deepEqual(parseLine('{"type":"done"}'), { ok: true, message: { type: 'done' } });
  assert.deepEqual(parseLine('{"type":"end","warmup":false}'), { ok: true, message: { type: 'end', warmup: false } });
  const e = parseLine('{"type":"error","call":"fork","errno":12,"message":"Cannot allocate memory"}');
  assert.deepEqual(e, { ok: true, message: { type: 'error', call: 'fork', errno: 12, message: 'Cannot allocate memory' } });
});

test('refuses what is not the protocol, with a reason', () => {
  const bad: [string, RegExp][] = [
    ['', /not JSON/],
    ['{"type":"samples","series":"x","warmup":false,"ns":[1,2,', /not JSON/],
    ['[1,2]', /not a JSON object/],
    ['{"type":"nope"}', /unknown message type/],
    ['{"type":"hello","protocol":"1","probe":"p","case":"c","pid":1}', /protocol/],
    ['{"type":"samples","series":"x","warmup":false,"ns":[]}', /non-empty/],
    ['{"type":"samples","series":"x","warmup":false,"ns":[1.5]}', /non-negative integers/],
    ['{"type":"samples","series":"x","warmup":false,"ns":[-1]}', /non-negative integers/],
    ['{"type":"samples","series":"x","warmup":"no","ns":[1]}', /warmup/],
    ['{"type":"samples","series":"x","warmup":false,"ns":[1,2],"minflt":[1]}', /column "minflt"/],
    ['{"type":"info","nested":{"a":1}}', /not a scalar/],
    ['{"type":"error","call":"fork","message":"x"}', /errno/],
  ];
  for (const [line, why] of bad) {
    const r = parseLine(line);
    assert.equal(r.ok, false, line);
    assert.match((r as { reason: string }).reason, why, line);
  }
});

test('commands are one line each', () => {
  assert.equal(formatCommand({ kind: 'run', iterations: 30 }), 'run 30\n');
  assert.equal(formatCommand({ kind: 'warmup', iterations: 5 }), 'warmup 5\n');
  assert.equal(formatCommand({ kind: 'stop' }), 'stop\n');
  assert.equal(PROTOCOL_VERSION, 1);
});
