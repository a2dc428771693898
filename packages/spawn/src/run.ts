// run(): spawn, buffer stdout and stderr up to maxBuffer (as execFile does), resolve with the outcome.
import type { ChildProcess, SpawnOptions } from 'node:child_process';

export interface RunOptions extends Omit<SpawnOptions, 'stdio'> {
  /** Bytes allowed on stdout and on stderr each; past it the child is killed (killSignal) and run() rejects. Default 1 MiB, as execFile. */
  maxBuffer?: number;
  /** 'buffer' for Buffers; any Buffer encoding for strings. Default 'utf8'. */
  encoding?: BufferEncoding | 'buffer';
  /** Written to the child's stdin, which is then closed. Without it stdin is closed at once. */
  input?: string | Uint8Array;
}

export interface RunResult<T extends string | Buffer = string> {
  stdout: T;
  stderr: T;
  /** null when the child died of a signal */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

export interface MaxBufferError extends RangeError {
  code: 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
  stdout: Buffer;
  stderr: Buffer;
}

export function collect<T extends string | Buffer>(child: ChildProcess, options: RunOptions): Promise<RunResult<T>> {
  const maxBuffer = options.maxBuffer ?? 1024 * 1024;
  const encoding = options.encoding ?? 'utf8';
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const sizes: [number, number] = [0, 0];
  return new Promise((resolve, reject) => {
    let failed: Error | null = null;
    const finish = (e: Error): void => {
      if (failed) return;
      failed = e;
      child.kill(options.killSignal ?? 'SIGTERM');
    };
    const take = (which: 0 | 1, chunks: Buffer[], name: string) => (chunk: Buffer) => {
      if (failed) return;
      sizes[which] += chunk.length;
      if (sizes[which] > maxBuffer) {
        const e = new RangeError(`${name} maxBuffer length exceeded`) as MaxBufferError;
        e.code = 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        chunks.push(chunk.subarray(0, chunk.length - (sizes[which] - maxBuffer)));
        e.stdout = Buffer.concat(out);
        e.stderr = Buffer.concat(err);
        finish(e);
        return;
      }
      chunks.push(chunk);
    };
    child.stdout?.on('data', take(0, out, 'stdout'));
    child.stderr?.on('data', take(1, err, 'stderr'));
    child.on('error', finish);
    child.on('close', (exitCode: number | null, signal: NodeJS.Signals | null) => {
      if (failed) return reject(failed);
      const decode = (b: Buffer[]): T => (encoding === 'buffer' ? Buffer.concat(b) : Buffer.concat(b).toString(encoding)) as T;
      resolve({ stdout: decode(out), stderr: decode(err), exitCode, signal });
    });
    const stdin = child.stdin;
    if (stdin) {
      stdin.on('error', () => {}); // a child that exits without reading its input: EPIPE is not run()'s failure
      if (options.input !== undefined) stdin.end(options.input);
      else stdin.end();
    }
  });
}
