// bench:http's load: autocannon against one server until `amount` responses or `seconds` have passed. The rate is
// taken from the responses themselves (the time of the last 2xx since the load began), not from autocannon's own
// start and finish: autocannon notices that `amount` is reached only at its next sample tick (one a second), so
// its finish is rounded up to a whole second after the start (4,000 responses in 3.2 s read as 4 s: 1,000/s, not
// 1,250/s; every rate was one of 4,000/N).
import { performance } from 'node:perf_hooks';

const autocannon = (await import('autocannon')).default;

/** Resolves with autocannon's result, the 2xx responses counted here and `seconds` up to the last of them. */
export function load(port, amount, seconds, connections) {
  return new Promise((resolve, reject) => {
    let ok = 0;
    let lastMs = null;
    const startMs = performance.now();
    let cap = null;
    const inst = autocannon({ url: `http://127.0.0.1:${port}/`, connections, amount, timeout: 30 }, (err, r) => {
      clearTimeout(cap);
      if (err) reject(err);
      else resolve({ result: r, ok, seconds: ((lastMs ?? performance.now()) - startMs) / 1000, resolvedMs: performance.now() - startMs });
    });
    inst.on('response', (_client, status) => {
      if (status >= 200 && status < 300) {
        ok += 1;
        lastMs = performance.now();
      }
    });
    cap = setTimeout(() => inst.stop(), seconds * 1000);
  });
}
