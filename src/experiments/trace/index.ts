// `trace` as the rest of forklab sees a stored run of it: identity, series, unit and view, so `show`, `report` and
// `export` read a trace like any run. A recording, not a sweep through the probe: a trace's life (src/lab/trace.ts)
// observes the user's own command, and `forklab trace` starts it.
import { MICROSECONDS_PER_CALL, type ShownRun, type Measurement, type Recording } from '../contract/types.js';
import { note, type Block } from '../contract/view.js';
import { traceView } from './view.js';
import { MECHANISMS } from './model.js';
import { READABLE_TRACE_VERSIONS, type TraceSummary } from './summary.js';

export type TraceParams = Record<string, unknown>;

function isTraceSummary(s: unknown): s is TraceSummary {
  return typeof s === 'object' && s !== null && READABLE_TRACE_VERSIONS.includes((s as TraceSummary).traceVersion);
}

export const traceRecording: Recording<TraceParams, TraceSummary | null> = {
  name: 'trace',
  article: '',
  summaryLine: 'which processes of a command fork, at what size, what it costs, and what to change (forklab trace -- COMMAND)',
  recordedBy: 'forklab trace -- COMMAND [ARGS…], or forklab trace --pid PID',
  identity: ['pid', 'program', 'rssMb'],
  series: [...MECHANISMS],
  valueOrder: {},
  unit: MICROSECONDS_PER_CALL,
  figures: 'outcomes',
  figureKeys: null,
  chart: {
    kind: 'points',
    id: 'trace-call-rss',
    title: "Time in the creating call against the creator's RSS",
    caption:
      "One point per process and mechanism: the median of its creating calls as strace timed them (the tracer's stops included), at its median RSS. " +
      'A fork grows with the RSS; vfork and posix_spawn-style calls do not. The text chart above draws this machine’s own launches beside them.',
    x: { field: 'rssMb', title: 'creator RSS, MB', scale: 'linear' },
    y: { title: 'µs in the call', scale: 'linear' },
    colour: { field: 'series', title: 'mechanism', ordered: true },
    positiveX: true,
    width: 520,
    height: 300,
  },
  /** A stored trace without its summary cannot be rebuilt from its measurements alone (the /proc samples and model are gone). */
  summarize: (_ms: readonly Measurement[]) => null,
  view(run: ShownRun<TraceSummary | null>): Block[] {
    if (!isTraceSummary(run.summary))
      return [note(`this trace has no summary this forklab can read (traceVersion ${READABLE_TRACE_VERSIONS.join(' or ')}); forklab export shows its raw calls`)];
    return traceView(run.summary);
  },
};
