// The settings `forklab reproduce` runs each experiment with: `full` follows the articles (their sizes,
// iteration counts and repeats where this machine allows them), `quick` keeps every configuration a claim or
// a headline figure needs but measures each for less time. Values are the raw option strings the CLI would
// pass (parsed with the experiment's own parse() and checked with its preflight()).
export type RawOptions = Record<string, string>;

export interface Preset {
  full: RawOptions;
  quick: RawOptions;
  /** Why the settings are what they are (printed by `forklab reproduce --help` and in docs/reproduce.md). */
  note: string;
}

export const PRESETS: Readonly<Record<string, Preset>> = {
  spawn: {
    // 000: 300 calls per configuration, 3 fresh runs, RSS 0/128/512/1024 MB, THP on (the article's
    // "always", reproduced with MADV_HUGEPAGE) and off. The spread claim needs two repeats even when quick.
    full: { methods: 'fork-exec,vfork-exec,posix-spawn', rss: '0,128,512,1024', thp: 'on,off', iterations: '300', warmup: '5', repeats: '3', ciTarget: '0', budgetMs: '0' },
    // Quick: up to 300 calls per probe but at most 300 ms of them (at least 30 calls): the cheap configurations
    // keep the article's 300 calls, the 1 GB fork+exec ones stop early.
    quick: { methods: 'fork-exec,vfork-exec,posix-spawn', rss: '0,256,1024', thp: 'on,off', iterations: '300', warmup: '3', repeats: '2', ciTarget: '0', budgetMs: '300' },
    note: 'article 000: 300 calls, 3 runs per configuration, RSS 0-1024 MB, THP on and off',
  },
  cow: {
    // 001: 80 MB of 4 KiB pages (one CoW fault per page); THP on only in the full run, for the render.
    full: { sizeMb: '80', thp: 'off,on', repeats: '5', iterations: '3', warmup: '1' },
    quick: { sizeMb: '80', thp: 'off', repeats: '4', iterations: '3', warmup: '1' },
    note: 'article 001: 80 MB touched before fork, 4 KiB pages',
  },
  create: {
    // 002: 2000 runs of each.
    full: { iterations: '2000', warmup: '50', repeats: '3' },
    quick: { iterations: '1000', warmup: '20', repeats: '2' },
    note: 'article 002: 2000 runs of thread create+join and of fork+waitpid',
  },
  pagetables: {
    // 003: 8238 one-page mappings 1 MiB apart (two per page-table page, ≈16.5 MB of page tables).
    full: { pages: '8238', spacingKb: '1024', iterations: '10', warmup: '1' },
    quick: { pages: '8238', spacingKb: '1024', iterations: '3', warmup: '1' },
    note: 'article 003: 8238 one-page mappings 1 MiB apart',
  },
  vma: {
    // 003 mapped 1,000,000 VMAs; vm.max_map_count (65530 by default) caps what a probe may map.
    full: { vmas: '0,1000,10000,30000,60000', iterations: '30', warmup: '3', repeats: '2' },
    quick: { vmas: '0,20000,60000', iterations: '30', warmup: '2', repeats: '3' },
    note: 'article 003: up to 60000 one-page mappings (the article: 1,000,000; vm.max_map_count allows 65530)',
  },
  deadlock: {
    full: { variants: 'without-atfork,with-atfork,plain-lock', holdMs: '50', childTimeoutMs: '500', repeats: '3' },
    quick: { variants: 'without-atfork,with-atfork', holdMs: '50', childTimeoutMs: '300', repeats: '1' },
    note: 'article 003: fork while another thread holds a mutex, with and without pthread_atfork',
  },
  exec: {
    // 004: fork+exec+wait of `return 0`, dynamic and static, against fork+_exit.
    full: { iterations: '2000', warmup: '20', repeats: '2', ldRuns: '5' },
    quick: { iterations: '300', warmup: '10', repeats: '1', ldRuns: '0' },
    note: 'article 004: fork+exec+wait of a `return 0` program, dynamic and static, and fork+_exit',
  },
};

export function presetFor(experiment: string, quick: boolean): RawOptions | null {
  const p = PRESETS[experiment];
  return p ? { ...(quick ? p.quick : p.full) } : null;
}
