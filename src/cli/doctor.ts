// `forklab doctor`: what on this machine moves the figures, why, and the command that changes it.
// Changes nothing unless --apply (root only; every change printed, the previous values saved outside any
// result for --reset). Without root, --apply prints the commands and changes nothing.
import { fitText } from '../text/fit.js';
import type { Command } from 'commander';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homedir } from 'node:os';
import pc from 'picocolors';
import { doctorSummary } from '../env/doctor.js';
import { examineMachine } from '../lab/doctor.js';
import type { DoctorCheck, FileChange } from '../env/doctor-check.js';
import { parseThpChoice } from '../env/parse.js';
import { readTextOrNull } from '../env/memory.js';
import { CliError } from './errors.js';
import { emitTo, fileOption, noColorOption, planFileFlag } from './options.js';

/** A change made by --apply, with what was there before. */
export interface SavedChange extends FileChange {
  previous: string;
}

export interface ApplyIo {
  isRoot: boolean;
  read(path: string): string | null;
  write(path: string, value: string): void;
}

/** Where --apply keeps the previous values: $XDG_STATE_HOME/forklab (else ~/.local/state/forklab), never beside results. */
export function defaultSavedPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'forklab', 'doctor-saved.json');
}

/** The current value of a sysfs/procfs setting: the bracketed choice of a choice file, else the trimmed text. */
export function currentValue(text: string): string {
  return text.includes('[') ? (parseThpChoice(text) ?? text.trim()) : text.trim();
}

function readSaved(path: string): SavedChange[] {
  if (!existsSync(path)) return [];
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { changes?: SavedChange[] };
    return Array.isArray(v.changes) ? v.changes : [];
  } catch (e) {
    throw new CliError(`${path} (saved values) is unreadable: ${(e as Error).message}. Remove it once the settings are as you want them.`, 1);
  }
}

/**
 * Makes the changes of the warned checks. Without root: makes none and returns the commands to run.
 * The previous value of each path is kept (the oldest one, when --apply runs twice) in `saved`.
 */
export function applyChanges(checks: readonly DoctorCheck[], io: ApplyIo, saved: SavedChange[]): { made: SavedChange[]; commands: string[]; failed: string[] } {
  const wanted = checks.filter((c) => c.status === 'warn' && c.apply.length > 0);
  const commands = wanted.map((c) => c.command!).filter(Boolean);
  if (!io.isRoot) return { made: [], commands, failed: [] };
  const made: SavedChange[] = [];
  const failed: string[] = [];
  for (const change of wanted.flatMap((c) => c.apply)) {
    const text = io.read(change.path);
    if (text === null) {
      failed.push(`${change.path}: not readable`);
      continue;
    }
    const previous = currentValue(text);
    if (previous === change.value) continue;
    try {
      io.write(change.path, change.value);
    } catch (e) {
      failed.push(`${change.path}: ${(e as Error).message}`);
      continue;
    }
    const entry = { ...change, previous };
    made.push(entry);
    if (!saved.some((s) => s.path === change.path)) saved.push(entry);
  }
  return { made, commands, failed };
}

/** Writes back every saved previous value (last change first). Without root: none, and the commands. */
export function resetChanges(saved: readonly SavedChange[], io: ApplyIo): { restored: SavedChange[]; commands: string[]; failed: string[] } {
  const commands = [...saved].reverse().map((s) => `echo ${s.previous} > ${s.path}`);
  if (!io.isRoot) return { restored: [], commands, failed: [] };
  const restored: SavedChange[] = [];
  const failed: string[] = [];
  for (const s of [...saved].reverse()) {
    try {
      io.write(s.path, s.previous);
      restored.push(s);
    } catch (e) {
      failed.push(`${s.path}: ${(e as Error).message}`);
    }
  }
  return { restored, commands, failed };
}

function renderChecks(checks: readonly DoctorCheck[], color: boolean): string {
  const c = color ? pc : { yellow: (s: string) => s, green: (s: string) => s, dim: (s: string) => s, bold: (s: string) => s };
  const tag = { warn: c.yellow('look '), ok: c.green('ok   '), info: c.dim('info ') };
  const out = [c.bold('forklab doctor: what on this machine moves the figures (nothing is changed without --apply)'), ''];
  for (const x of checks) {
    out.push(`${tag[x.status]} ${x.title}: ${x.found}`);
    out.push(c.dim(`      why: ${x.why}`));
    if (x.command) out.push(`      change: ${x.command}`);
  }
  out.push('', doctorSummary(checks));
  return out.join('\n');
}

const realIo = (): ApplyIo => ({
  isRoot: process.getuid?.() === 0,
  read: readTextOrNull,
  write: (path, value) => writeFileSync(path, `${value}\n`),
});

function runApply(checks: DoctorCheck[], savedPath: string, io: ApplyIo): number {
  const saved = readSaved(savedPath);
  const r = applyChanges(checks, io, saved);
  if (!io.isRoot) {
    process.stdout.write(`\nnot root: nothing was changed. As root, these make the changes:\n${r.commands.map((x) => `  ${x}`).join('\n') || '  (none needed)'}\n`);
    return 1;
  }
  for (const m of r.made) process.stdout.write(`changed ${m.path}: ${m.previous} → ${m.value}\n`);
  for (const f of r.failed) process.stderr.write(`forklab doctor: could not change ${f}\n`);
  if (r.made.length === 0 && r.failed.length === 0) process.stdout.write('nothing to change\n');
  if (saved.length) {
    mkdirSync(dirname(savedPath), { recursive: true });
    writeFileSync(savedPath, `${JSON.stringify({ savedAt: new Date().toISOString(), changes: saved }, null, 1)}\n`);
    process.stdout.write(`previous values saved in ${savedPath}; forklab doctor --reset puts them back\n`);
  }
  return r.failed.length ? 1 : 0;
}

function runReset(savedPath: string, io: ApplyIo): number {
  const saved = readSaved(savedPath);
  if (saved.length === 0) {
    process.stdout.write(`nothing to reset (no saved values in ${savedPath})\n`);
    return 0;
  }
  const r = resetChanges(saved, io);
  if (!io.isRoot) {
    process.stdout.write(`not root: nothing was changed. As root, these put the previous values back:\n${r.commands.map((x) => `  ${x}`).join('\n')}\n`);
    return 1;
  }
  for (const s of r.restored) process.stdout.write(`restored ${s.path}: ${s.previous}\n`);
  for (const f of r.failed) process.stderr.write(`forklab doctor: could not restore ${f}\n`);
  if (r.failed.length === 0) rmSync(savedPath, { force: true });
  return r.failed.length ? 1 : 0;
}

/** The one-line summary other commands print first (reproduce, selfcheck); never throws. */
export async function doctorSummaryLine(intervalMs = 250): Promise<string> {
  try {
    return doctorSummary(await examineMachine({ intervalMs }));
  } catch (e) {
    return `doctor: could not check this machine (${(e as Error).message})`;
  }
}

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('what on this machine moves the figures (governor, boost, SMT, THP, overcommit, cgroup limits, steal, load, pinning, ASLR, tracer), why, and how to change it')
    .addOption(fileOption('--json', 'write the checks as JSON'))
    .option('--apply', 'as root: make the suggested changes, printing each and saving the previous values')
    .option('--reset', 'as root: put back the values saved by --apply')
    .option('--saved <file>', 'where --apply saves previous values (default: $XDG_STATE_HOME/forklab/doctor-saved.json)')
    .addOption(noColorOption())
    .exitOverride()
    .action(async (o: { json?: string | boolean; apply?: boolean; reset?: boolean; saved?: string; color?: boolean }) => {
      if (o.apply && o.reset) throw new CliError('--apply and --reset: choose one');
      if (o.saved !== undefined && o.saved.trim() === '') throw new CliError('--saved: expected a file path');
      const savedPath = o.saved ?? defaultSavedPath();
      const json = planFileFlag('--json', o.json);
      if (o.reset) {
        process.exitCode = runReset(savedPath, realIo());
        return;
      }
      const checks = await examineMachine();
      if (json) emitTo('--json', json, `${JSON.stringify({ summary: doctorSummary(checks), checks }, null, 1)}\n`);
      else process.stdout.write(`${fitText(renderChecks(checks, o.color !== false && Boolean(process.stdout.isTTY) && !process.env.NO_COLOR))}\n`);
      if (o.apply) process.exitCode = runApply(checks, savedPath, realIo());
    });
}
