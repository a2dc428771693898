// What a recorded frame is, read after the trace: the user's own code, a dependency (node_modules/<pkg>/…,
// site-packages/<pkg>/…, named by its package), or @forklab/spawn itself (wherever it is installed: a workspace
// resolves to its real path, outside node_modules); and where it is in the source, through the file's source map
// when the program ships one (`//# sourceMappingURL=` beside the generated file, read as Node's module.SourceMap
// reads it). Node's own mapping (the program ran with source maps enabled) is taken as the recorder saw it.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RawFrame } from './recorder.js';

/** The package whose frames are part of the spawning machinery, like node: internals: the call site is its caller. */
export const FORKLAB_SPAWN = '@forklab/spawn';

export type FrameKind = 'own' | 'dependency' | 'forklab-spawn';

export interface SiteFrame {
  /** The source file, relative to the directory forklab ran in when it lies inside it. */
  file: string;
  line: number;
  column: number | null;
  fn: string | null;
  kind: FrameKind;
  /** The dependency's package name (node_modules/<pkg>, site-packages/<pkg>); null for the user's own code. */
  package: string | null;
  /** Where the position comes from: the runtime's source map, the file's source map read here, or none (as run). */
  mapped: 'runtime' | 'file' | null;
}

const toPath = (f: string) => (f.startsWith('file://') ? fileURLToPath(f) : f);

/** The package a path lies in by its folder: node_modules/<pkg> or node_modules/@scope/<pkg>, site-packages/<pkg>. */
export function packageOfPath(path: string): string | null {
  const parts = path.split('/');
  const nm = parts.lastIndexOf('node_modules');
  if (nm >= 0 && parts[nm + 1]) return parts[nm + 1]!.startsWith('@') && parts[nm + 2] ? `${parts[nm + 1]}/${parts[nm + 2]}` : parts[nm + 1]!;
  const sp = Math.max(parts.lastIndexOf('site-packages'), parts.lastIndexOf('dist-packages'));
  if (sp >= 0 && parts[sp + 1]) return parts[sp + 1]!.replace(/\.py[cd]?$/, '');
  return null;
}

export class FrameReader {
  private readonly packageNames = new Map<string, string | null>();
  private readonly maps = new Map<string, { map: SourceMap; dir: string } | null>();

  constructor(private readonly cwd: string) {}

  /** The "name" of the nearest package.json at or above dir (cached per directory); null when none. */
  private nearestPackage(dir: string): string | null {
    const seen: string[] = [];
    let d = dir;
    let name: string | null | undefined;
    for (let i = 0; i < 64; i++) {
      name = this.packageNames.get(d);
      if (name !== undefined) break;
      seen.push(d);
      const pj = join(d, 'package.json');
      if (existsSync(pj)) {
        // A package.json without a name (a build's {"type": "commonjs"}) is not a package's root: look further up.
        let n: unknown;
        try {
          n = (JSON.parse(readFileSync(pj, 'utf8')) as { name?: unknown }).name;
        } catch {
          n = undefined;
        }
        if (typeof n === 'string') {
          name = n;
          break;
        }
      }
      const up = dirname(d);
      if (up === d) {
        name = null;
        break;
      }
      d = up;
    }
    for (const s of seen) this.packageNames.set(s, name ?? null);
    return name ?? null;
  }

  /** The source map a generated file names (a file beside it, or a data: URL), null when it has none. */
  private mapOf(path: string): { map: SourceMap; dir: string } | null {
    if (this.maps.has(path)) return this.maps.get(path)!;
    let got: { map: SourceMap; dir: string } | null = null;
    try {
      const text = readFileSync(path, 'utf8');
      const url = /\/\/[#@]\s*sourceMappingURL=(\S+)\s*$/.exec(text.slice(-4096))?.[1];
      if (url) {
        let payload: string;
        let dir = dirname(path);
        const data = /^data:application\/json[^,]*?(;base64)?,(.*)$/.exec(url);
        if (data) payload = data[1] ? Buffer.from(data[2]!, 'base64').toString('utf8') : decodeURIComponent(data[2]!);
        else {
          const mapPath = url.startsWith('file://') ? fileURLToPath(url) : resolve(dir, url);
          payload = readFileSync(mapPath, 'utf8');
          dir = dirname(mapPath);
        }
        got = { map: new SourceMap(JSON.parse(payload)), dir };
      }
    } catch {
      got = null;
    }
    this.maps.set(path, got);
    return got;
  }

  private display(path: string): string {
    const rel = relative(this.cwd, path);
    return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
  }

  /** A recorded frame, classified and (where the file ships a source map) placed in its source. */
  read(f: RawFrame): SiteFrame {
    let path = toPath(f.file);
    let line = f.line;
    let column = f.column;
    let mapped: SiteFrame['mapped'] = f.generated ? 'runtime' : null;
    if (!mapped && column !== null && isAbsolute(path)) {
      const m = this.mapOf(path);
      const e = m?.map.findEntry(line - 1, column - 1) as { originalSource?: string; originalLine?: number; originalColumn?: number } | undefined;
      if (m && e && typeof e.originalSource === 'string' && typeof e.originalLine === 'number') {
        const src = e.originalSource;
        path = src.startsWith('file://') ? fileURLToPath(src) : resolve(m.dir, src);
        line = e.originalLine + 1;
        column = (e.originalColumn ?? 0) + 1;
        mapped = 'file';
      }
    }
    const pkg = packageOfPath(path);
    const own = isAbsolute(path) && !pkg ? this.nearestPackage(dirname(path)) : null;
    const kind: FrameKind = pkg === FORKLAB_SPAWN || own === FORKLAB_SPAWN ? 'forklab-spawn' : pkg ? 'dependency' : 'own';
    return { file: this.display(path), line, column, fn: f.fn, kind, package: kind === 'own' ? null : (pkg ?? own), mapped };
  }
}

/** "src/build.ts:42:7" */
export const where = (f: Pick<SiteFrame, 'file' | 'line' | 'column'>) => `${f.file}:${f.line}${f.column !== null ? `:${f.column}` : ''}`;
