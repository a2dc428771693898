// bench:http's rate: taken up to the last response, not up to autocannon's next one-second tick (which rounded
// every run's time up to a whole second: 4,000 responses read as 4,000/N requests/s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { load } from '../bench/http-load.mjs';

test('the rate ends at the last response, before autocannon reports', async () => {
  let lastServedMs = 0;
  const server = http.createServer((_req, res) => {
    res.end('hi\n');
    lastServedMs = performance.now();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const startMs = performance.now();
    const r = await load(port, 50, 30, 2);
    assert.equal(r.ok, 50);
    // the last response reached the client after the server sent it, and before autocannon's callback
    assert.ok(startMs + r.seconds * 1000 >= lastServedMs, `${r.seconds} s ends before the last response was sent`);
    assert.ok(r.seconds * 1000 < r.resolvedMs, `${r.seconds} s is not before autocannon's report (${r.resolvedMs} ms)`);
    // and not rounded up to autocannon's tick, a second after the start (50 local responses take far less)
    const afterLastMs = startMs + r.seconds * 1000 - lastServedMs;
    assert.ok(afterLastMs < 500, `the rate's time ends ${afterLastMs} ms after the last response was sent`);
  } finally {
    server.close();
  }
});
