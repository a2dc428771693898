// `forklab selfcheck` (npm run bench:fidelity): does the harness distort the figure? Runs the articles'
// own method — a minimal stand-alone C loop of spawn+waitpid, mean per call — beside forklab's probe in
// the same conditions, interleaved, and prints forklab's mean ÷ the loop's mean per method and RSS.
import { Option, type Command } from 'commander';
import { defaultText } from './options.js';
import { nativePaths, requireNative } from '../runner/paths.js';
import { runProbe, describeFailure } from '../runner/probe.js';
import { fixedPlan } from '../runner/plans.js';
import { runCommand } from '../runner/command.js';
import { interleave } from '../runner/schedule.js';
import { killAllGroups } from '../runner/processes.js';
import { mean, median } from '../stats/descriptive.js';
import { parseChoiceList, parseCpu, parseInteger, parseIntegerList } from '../experiments/parse.js';
import { METHODS, type Method } from '../experiments/spawn.js';
import { UsageError } from '../experiments/types.js';
import { renderTable, fmtUs } from '../report/table.js';
import { CliError } from './run.js';

const TOLERANCE = 0.1;

interface Cell {
  method: Method;
  rssMb: number;
  probeMeansNs: number[];
  loopMeansNs: number[];
}

export function registerSelfcheck(program: Command): void {
  program
    .command('selfcheck')
    .description("fidelity benchmark: forklab's per-call figure ÷ a bare C loop's, interleaved (must stay within ±10 %)")
    .addOption(new Option('--methods <list>', `methods: ${METHODS.join(', ')}`).default('fork-exec,vfork-exec,posix-spawn', defaultText('fork-exec,vfork-exec,posix-spawn')))
    .addOption(new Option('--rss <list>', 'parent RSS sizes in MB').default('0,512', defaultText('0,512', 'MB')))
    .addOption(new Option('--thp <mode>', 'on, off or default').default('off', 'off'))
    .addOption(new Option('--iterations <n>', 'calls per process, both sides').default('200', defaultText('200', 'calls')))
    .addOption(new Option('--rounds <n>', 'interleaved rounds (fresh processes each)').default('3', defaultText('3', 'rounds')))
    .option('--pin <cpu>', 'pin both sides to this CPU')
    .exitOverride()
    .action(async (o: Record<string, string | undefined>) => {
      let methods: Method[], rss: number[], iterations: number, rounds: number, pin: number | null, thp: string;
      try {
        methods = parseChoiceList('--methods', o.methods!, METHODS);
        rss = parseIntegerList('--rss', o.rss!, 0, 1 << 20);
        thp = parseChoiceList('--thp', o.thp!, ['on', 'off', 'default'] as const)[0]!;
        iterations = parseInteger('--iterations', o.iterations!, 1, 1_000_000);
        rounds = parseInteger('--rounds', o.rounds!, 1, 1000);
        pin = parseCpu('--pin', o.pin, null);
      } catch (e) {
        if (e instanceof UsageError) throw new CliError(`forklab selfcheck: ${e.message}`);
        throw e;
      }
      const native = requireNative(nativePaths());
      const controller = new AbortController();
      const onSig = () => {
        controller.abort();
        killAllGroups();
      };
      process.on('SIGINT', onSig);
      const cells: Cell[] = methods.flatMap((method) => rss.map((rssMb) => ({ method, rssMb, probeMeansNs: [], loopMeansNs: [] })));
      // Each scheduled item runs the probe and the loop back to back, in an order that alternates.
      const order = interleave(cells, rounds, 7);
      let failures = 0;
      try {
        for (const [i, { config: c, repeat }] of order.entries()) {
          if (controller.signal.aborted) break;
          if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2Kselfcheck ${i + 1}/${order.length} ${c.method} ${c.rssMb} MB`);
          const probeFirst = (i + repeat) % 2 === 0;
          for (const side of probeFirst ? ['probe', 'loop'] : ['loop', 'probe']) {
            if (side === 'probe') {
              const args: Record<string, string | number> = { method: c.method, 'rss-mb': c.rssMb, thp, target: native.targetStatic };
              if (pin !== null) args.cpu = pin;
              const r = await runProbe({ probePath: native.probe, caseName: 'spawn', args, plan: fixedPlan(5, iterations), timeoutMs: 120_000, signal: controller.signal });
              if (r.state === 'failed') {
                failures++;
                process.stderr.write(`\nprobe failed: ${describeFailure(r.reason)}\n`);
              } else c.probeMeansNs.push(mean(r.series[0]!.samplesNs));
            } else {
              const argv = [c.method, String(c.rssMb), thp, String(iterations), native.targetStatic];
              const file = pin === null ? native.loop : 'taskset';
              const args = pin === null ? argv : ['-c', String(pin), native.loop, ...argv];
              const r = await runCommand(file, args, { timeoutMs: 120_000, signal: controller.signal });
              if (r.state === 'failed') {
                failures++;
                process.stderr.write(`\nloop failed: ${r.why}\n`);
              } else c.loopMeansNs.push((JSON.parse(r.stdout) as { meanNs: number }).meanNs);
            }
          }
        }
      } finally {
        process.off('SIGINT', onSig);
        killAllGroups();
        if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
      }
      let worst = 0;
      const rows = cells.map((c) => {
        if (!c.probeMeansNs.length || !c.loopMeansNs.length) return [c.method, `${c.rssMb} MB`, '—', '—', '—', 'no data'];
        const p = median(c.probeMeansNs);
        const l = median(c.loopMeansNs);
        const ratio = p / l;
        worst = Math.max(worst, Math.abs(ratio - 1));
        return [c.method, `${c.rssMb} MB`, fmtUs(p), fmtUs(l), ratio.toFixed(3), Math.abs(ratio - 1) <= TOLERANCE ? 'ok' : 'OUT'];
      });
      process.stdout.write(
        `forklab selfcheck: THP ${thp}, ${iterations} calls × ${rounds} rounds per side, median over rounds of the mean per call\n` +
          renderTable(['method', 'parent RSS', 'forklab µs', 'C loop µs', 'ratio', `±${TOLERANCE * 100} %`], rows, { leftAlign: [0] }) +
          `\nworst deviation: ${(worst * 100).toFixed(1)} %\n`,
      );
      const bad = rows.some((r) => r[5] !== 'ok');
      process.exitCode = failures || bad || controller.signal.aborted ? 1 : 0;
    });
}
