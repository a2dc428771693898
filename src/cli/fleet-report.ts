// `forklab fleet report DIR [--html FILE] [--markdown FILE] [--json FILE] [--reference NODE] [--seed N]`:
// the run documents under DIR (fleet collect's OUT/<machine>/*.json) as machines side by side.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import type { RunDocument } from '../document/run.js';
import { buildFleet } from '../claims/fleet.js';
import { fleetHtml, fleetMarkdown } from '../report/fleet.js';
import { DocumentError, parseRunDocument } from '../document/validate.js';
import { FORKLAB_VERSION } from '../version.js';
import { planOutput, writeOutput } from './output.js';
import { parseCommon } from './run.js';
import { fileOption, planFileFlag, seedOption } from './options.js';

interface ReportFlags {
  html?: string | boolean;
  markdown?: string | boolean;
  json?: string | boolean;
  reference?: string;
  seed?: string;
}

/** Every run document below DIR (other JSON files, such as a fleet-collect summary, are named and skipped). */
function readFleetDir(dir: string, warn: (s: string) => void): RunDocument[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError('DIR', `${dir} is not a directory`);
  const out: RunDocument[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json'))
        try {
          out.push(parseRunDocument(readFileSync(p, 'utf8')));
        } catch (e) {
          if (!(e instanceof DocumentError)) throw e;
          warn(`forklab fleet report: skipped ${p}: ${e.message}`);
        }
    }
  };
  walk(dir);
  if (out.length === 0) throw new UsageError('DIR', `${dir} holds no run documents (fleet collect writes them as OUT/<machine>/*.json)`);
  return out;
}

function runFleetReport(dir: string, f: ReportFlags): number {
  const { seed } = parseCommon({ seed: f.seed });
  const targets = {
    html: planFileFlag('--html', f.html),
    markdown: planFileFlag('--markdown', f.markdown),
    json: planFileFlag('--json', f.json),
  };
  const docs = readFleetDir(dir, (s) => process.stderr.write(`${s}\n`));
  const doc = buildFleet(docs, { seed, reference: f.reference, forklabVersion: FORKLAB_VERSION });
  const none = !targets.html && !targets.markdown && !targets.json;
  if (targets.json) writeOutput('--json', targets.json, `${JSON.stringify(doc, null, 1)}\n`);
  if (targets.html) writeOutput('--html', targets.html, fleetHtml(doc));
  if (targets.markdown || none) writeOutput('--markdown', targets.markdown ?? planOutput('--markdown', '-'), fleetMarkdown(doc));
  return 0;
}

export function registerFleetReport(fleet: Command): void {
  fleet
    .command('report')
    .description('machines side by side from DIR (fleet collect’s output): machines, claims × machines, headline figures, each against a reference')
    .argument('<dir>', 'the directory fleet collect wrote (OUT/<machine>/*.json)')
    .addOption(fileOption('--html', 'write one self-contained HTML page'))
    .addOption(fileOption('--markdown', 'write Markdown (the default, on standard output)'))
    .addOption(fileOption('--json', 'write the forklab.fleet document'))
    .option('--reference <machine>', 'the machine the others are compared with: a node name or a machine key (default: the first)')
    .addOption(seedOption())
    .action((dir: string, f: ReportFlags) => {
      process.exitCode = runFleetReport(dir, f);
    });
}
