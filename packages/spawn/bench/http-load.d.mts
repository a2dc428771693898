// Types of http-load.mjs, for the unit test written in TypeScript.
export interface Load {
  /** autocannon's own result */
  result: { latency: { p50: number; p90: number; p99: number }; errors: number; timeouts: number; non2xx: number };
  /** 2xx responses */
  ok: number;
  /** from the start of the load to the last 2xx response */
  seconds: number;
  /** from the start of the load to autocannon's callback */
  resolvedMs: number;
}
export function load(port: number, amount: number, seconds: number, connections: number): Promise<Load>;
