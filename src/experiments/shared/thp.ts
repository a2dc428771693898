// What the experiments that map a region with and without transparent huge pages share: how their THP condition
// is verified (ThpCondition), and the warning when the system setting makes --thp on impossible.
import { readThpChoice } from '../../env/thp.js';
import type { ThpCondition } from '../contract/chart.js';
import type { Warning } from '../contract/types.js';

/** The THP condition of an experiment whose region's size in MB is `regionMbField`: thp on/off, read back as hugePagesKb. */
export const THP_CONDITION = (regionMbField: string): ThpCondition => ({
  field: 'thp',
  regionMbField,
  hugePagesKbField: 'hugePagesKb',
  readings: ['hugePagesKb', 'regionRssKb'],
});

/** The warning for a run that asks for THP on where the system setting is [never]; none otherwise. */
export function thpNeverWarnings(thp: readonly string[]): Warning[] {
  if (!thp.includes('on') || readThpChoice('enabled') !== 'never') return [];
  return [
    {
      code: 'thp-never',
      message:
        'transparent_hugepage/enabled is [never]: --thp on cannot get huge pages here, so its rows will look like --thp off. As root: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled',
    },
  ];
}
