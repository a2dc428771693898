// run(): spawn, buffer stdout and stderr up to maxBuffer (as execFile does), resolve with the outcome. Its own
// options are checked before anything starts; once a child runs, the promise settles in every case.
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

/** util.inspect, looked up only for an error message: loading node:util when the package loads would set up
 * process.stderr on Node 22 and later (a Pipe handle and a descriptor more than child_process has). */
function inspect(v: unknown): string {
  const util = (process as { getBuiltinModule?: (id: string) => { inspect(v: unknown): string } | undefined }).getBuiltinModule?.('node:util');
  return util ? util.inspect(v) : typeof v === 'string' ? `'${v}'` : String(v);
}

function invalid(code: string, Kind: typeof TypeError | typeof RangeError, message: string): Error {
  return Object.assign(new Kind(message), { code });
}

/** What is wrong with run()'s own options (the rest child_process checks), or null. */
export function runOptionsError(options: RunOptions): Error | null {
  if (options === null || typeof options !== 'object') {
    return invalid('ERR_INVALID_ARG_TYPE', TypeError, `The "options" argument must be of type object. Received ${inspect(options)}`);
  }
  const { encoding, input, maxBuffer } = options;
  if (encoding !== undefined && encoding !== 'buffer' && !(typeof encoding === 'string' && Buffer.isEncoding(encoding))) {
    return invalid('ERR_INVALID_ARG_VALUE', TypeError, `The property 'options.encoding' must be 'buffer' or a Buffer encoding. Received ${inspect(encoding)}`);
  }
  if (input !== undefined && typeof input !== 'string' && !(input instanceof Uint8Array)) {
    return invalid('ERR_INVALID_ARG_TYPE', TypeError, `The "options.input" property must be of type string or an instance of Uint8Array. Received ${inspect(input)}`);
  }
  if (maxBuffer !== undefined && (typeof maxBuffer !== 'number' || Number.isNaN(maxBuffer) || maxBuffer < 0)) {
    return invalid('ERR_OUT_OF_RANGE', RangeError, `The value of "options.maxBuffer" is out of range. It must be a number >= 0. Received ${inspect(maxBuffer)}`);
  }
  return null;
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
      try {
        const decode = (b: Buffer[]): T => (encoding === 'buffer' ? Buffer.concat(b) : Buffer.concat(b).toString(encoding)) as T;
        resolve({ stdout: decode(out), stderr: decode(err), exitCode, signal });
      } catch (e) {
        reject(e);
      }
    });
    const stdin = child.stdin;
    if (stdin) {
      stdin.on('error', () => {}); // a child that exits without reading its input: EPIPE is not run()'s failure
      try {
        if (options.input !== undefined) stdin.end(options.input);
        else stdin.end();
      } catch (e) {
        finish(e as Error); // the child is killed; 'close' rejects with this
      }
    }
  });
}
