// A real single-node Slurm (munged, slurmctld, slurmd from Debian's slurm-wlm and munge) in a temporary
// directory, on free ports, for the fleet slurm test. When it cannot start here, `reason` says exactly why
// (what is missing, or the daemon's last log line) and the test skips with it. stop() ends what it started.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempDir } from './tmp.js';

export interface Slurm {
  dir: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const lastLine = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').slice(-3).join(' | ') : `${file} was not written`);

export async function startSlurm(): Promise<Slurm | { reason: string }> {
  const missing = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'sinfo'].filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
  if (missing.length) return { reason: `${missing.join(', ')} not installed (apt-get install -y slurm-wlm munge)` };
  if (process.getuid?.() !== 0) return { reason: 'slurmd must run as root to start jobs, and this test is not root' };
  const dir = tempDir('forklab-slurm-');
  for (const d of ['munge', 'state', 'spool', 'log']) mkdirSync(join(dir, d));
  // munged wants every directory above its socket searchable by all, and its key readable by it alone.
  chmodSync(dir, 0o755);
  chmodSync(join(dir, 'munge'), 0o755);
  const key = join(dir, 'munge', 'munge.key');
  writeFileSync(key, randomBytes(1024), { mode: 0o400 });
  const socket = join(dir, 'munge', 'munge.socket');
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    const deadline = Date.now() + 5000;
    while (children.some((c) => c.exitCode === null && c.signalCode === null) && Date.now() < deadline) await sleep(100);
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  const start = (cmd: string, args: string[], log: string) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr!.on('data', (d) => (err += d));
    c.on('close', () => writeFileSync(join(dir, 'log', `${log}.stderr`), err));
    children.push(c);
    return c;
  };
  start(
    'munged',
    [
      '-F',
      `--socket=${socket}`,
      `--key-file=${key}`,
      `--pid-file=${join(dir, 'munge', 'munged.pid')}`,
      `--log-file=${join(dir, 'log', 'munged.log')}`,
      `--seed-file=${join(dir, 'munge', 'seed')}`,
    ],
    'munged',
  );
  for (let i = 0; i < 50 && !existsSync(socket); i++) await sleep(100);
  if (!existsSync(socket)) {
    await stop();
    return { reason: `munged did not create its socket: ${lastLine(join(dir, 'log', 'munged.stderr'))}` };
  }
  const node = hostname().split('.')[0]!;
  const conf = join(dir, 'slurm.conf');
  const cpus = spawnSync('nproc', { encoding: 'utf8' }).stdout.trim() || '1';
  writeFileSync(
    conf,
    [
      'ClusterName=forklabtest',
      `SlurmctldHost=${node}(127.0.0.1)`,
      `SlurmctldPort=${await freePort()}`,
      `SlurmdPort=${await freePort()}`,
      'AuthType=auth/munge',
      `AuthInfo=socket=${socket}`,
      'CredType=cred/munge',
      'SlurmUser=root',
      'SlurmdUser=root',
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'log', 'slurmd.log')}`,
      // No cgroup plugins: this machine's cgroups are a v1/v2 hybrid; process tracking by /proc is enough here.
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'MpiDefault=none',
      'ReturnToService=2',
      'JobAcctGatherType=jobacct_gather/none',
      'AccountingStorageType=accounting_storage/none',
      'JobCompType=jobcomp/none',
      'SchedulerType=sched/builtin',
      `NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus} State=UNKNOWN`,
      `PartitionName=lab Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
      '',
    ].join('\n'),
  );
  const env = { ...process.env, SLURM_CONF: conf };
  start('slurmctld', ['-D', '-f', conf], 'slurmctld');
  start('slurmd', ['-D', '-f', conf], 'slurmd');
  for (let i = 0; i < 100; i++) {
    const s = spawnSync('sinfo', ['-h', '-o', '%t'], { encoding: 'utf8', env, timeout: 5000 });
    if (s.status === 0 && /^idle/m.test(s.stdout)) return { dir, env, stop };
    if (children.some((c) => c.exitCode !== null)) break;
    await sleep(200);
  }
  await stop();
  return {
    reason: `Slurm did not come up within 20 s: slurmctld: ${lastLine(join(dir, 'log', 'slurmctld.log'))}; slurmd: ${lastLine(join(dir, 'log', 'slurmd.log'))}`,
  };
}
