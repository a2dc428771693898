// `forklab rm RUN…`: removes runs and their measurements from the history, nothing else. Every reference is
// resolved first (one that names no run removes nothing); on a terminal it asks, elsewhere it needs --yes.
import type { Command } from 'commander';
import { createInterface } from 'node:readline/promises';
import { dbOption } from './options.js';
import { CliError } from './errors.js';
import { guarded, localTime, RUN_HELP, withStore } from './history-common.js';
import type { RunRow } from '../store/db.js';

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

function describe(r: RunRow): string {
  return `  run ${r.id} (${r.uuid.slice(0, 8)}) ${r.experiment}${r.label ? ` [${r.label}]` : ''}, ${r.status}, started ${localTime(r.startedAt)}, ${r.measurements} measurements`;
}

export function registerRmCommand(program: Command): void {
  program
    .command('rm')
    .description('remove runs and their samples from the history (asks first on a terminal; --yes elsewhere)')
    .argument('<runs...>', RUN_HELP)
    .addOption(dbOption())
    .option('-y, --yes', 'remove without asking')
    .exitOverride()
    .action((refs: string[], o: { db?: string; yes?: boolean }) =>
      guarded('rm', async () => {
        const rows = withStore(o, false, (s) => {
          const ids = [...new Set(refs.map((r) => s.resolveRun(r)))];
          const all = new Map(s.listRuns().map((r) => [r.id, r]));
          return ids.map((id) => all.get(id)!);
        });
        const list = rows.map(describe).join('\n');
        if (!o.yes) {
          if (!process.stdin.isTTY || !process.stderr.isTTY)
            throw new CliError(`would remove ${rows.length} run${rows.length === 1 ? '' : 's'}:\n${list}\nnot a terminal, so nothing was removed: add --yes to remove them`);
          process.stderr.write(`forklab rm: this removes ${rows.length} run${rows.length === 1 ? '' : 's'} and their samples:\n${list}\n`);
          if (!(await confirm('remove them? [y/N] '))) {
            process.stderr.write('forklab rm: nothing was removed\n');
            return;
          }
        }
        const done = withStore(o, false, (s) => s.removeRuns(rows.map((r) => r.id)));
        process.stderr.write(`forklab rm: removed ${done.runs} run${done.runs === 1 ? '' : 's'} (${done.measurements} measurements)\n`);
      }),
    );
}
