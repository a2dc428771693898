// `forklab selfcheck` (npm run bench:fidelity): its options parsed and checked up front like an experiment's
// (--pin among the allowed CPUs), the pairs run by src/lab/selfcheck.ts, the verdict printed (src/report/selfcheck.ts).
import { fitText } from '../text/fit.js';
import { Option, type Command } from 'commander';
import { defaultText, pinOption, specOption } from './options.js';
import { cpusAllowed } from '../env/process.js';
import { parseChoiceList, parseCpu, parseInteger, parseIntegerList } from '../text/parse.js';
import { countOption, parseCount, type CountSpecs } from '../experiments/shared/counts.js';
import { METHODS, THP_MODES } from '../experiments/spawn/summary.js';
import { preflightSelfcheck, runSelfcheck, selfcheckProbe, type SelfcheckOutcome } from '../lab/selfcheck.js';
import type { SelfcheckParams } from '../claims/selfcheck.js';
import { SUITES } from '../experiments/index.js';
import { renderSelfcheck } from '../report/selfcheck.js';
import { onInterrupt } from './run.js';
import { doctorSummaryLine } from './doctor.js';

const COUNTS: CountSpecs = { iterations: { description: 'calls per process, both sides', defaultValue: '200', unit: 'calls', max: 1_000_000 } };

export function parseSelfcheck(o: Record<string, string | undefined>, allowed: readonly number[] | null): SelfcheckParams {
  return {
    suites: parseChoiceList('--suites', o.suites === 'all' ? SUITES.join(',') : o.suites!, SUITES),
    methods: parseChoiceList('--methods', o.methods!, METHODS),
    rssMb: parseIntegerList('--rss', o.rss!, 0, 1 << 22),
    thp: parseChoiceList('--thp', o.thp === 'all' ? THP_MODES.join(',') : o.thp!, THP_MODES),
    iterations: parseCount('iterations', o, COUNTS),
    rounds: parseInteger('--rounds', o.rounds!, 1, 1000),
    pinCpu: parseCpu('--pin', o.pin, allowed),
  };
}

export function registerSelfcheck(program: Command): void {
  program
    .command('selfcheck')
    .description("fidelity benchmark: forklab's per-call figure ÷ a bare C loop's, interleaved (must stay within ±10 %)")
    .addOption(new Option('--suites <list>', `what to check: ${SUITES.join(', ')}, or all`).default(SUITES[0], SUITES[0]))
    .addOption(new Option('--methods <list>', `spawn methods: ${METHODS.join(', ')}`).default('fork-exec,vfork-exec,posix-spawn', defaultText('fork-exec,vfork-exec,posix-spawn')))
    .addOption(new Option('--rss <list>', 'spawn: parent RSS sizes in MB').default('0,512', defaultText('0,512', 'MB')))
    .addOption(new Option('--thp <list>', 'spawn: on, off, default (a list), or all').default('off', 'off'))
    .addOption(specOption(countOption('iterations', COUNTS)))
    .addOption(new Option('--rounds <n>', 'interleaved rounds (fresh processes each)').default('5', defaultText('5', 'rounds')))
    .addOption(pinOption())
    .exitOverride()
    .action(async (o: Record<string, string | undefined>) => {
      const p = parseSelfcheck(o, cpusAllowed());
      preflightSelfcheck(p);
      const probe = selfcheckProbe();
      process.stderr.write(`${await doctorSummaryLine()}\nselfcheck: the probe and its loop: ${probe.origin}\n`);
      const controller = new AbortController();
      const stopSignals = onInterrupt(controller);
      let outcome: SelfcheckOutcome;
      try {
        outcome = await runSelfcheck(p, probe.native, controller.signal);
      } finally {
        stopSignals();
      }
      const r = renderSelfcheck(outcome.cells, p, outcome.witness);
      process.stdout.write(fitText(r.text));
      process.exitCode = controller.signal.aborted ? 130 : r.pass ? 0 : 1;
    });
}
