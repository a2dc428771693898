// What a campaign case's child does: a list of steps (plain JSON), rendered as a POSIX sh script for the
// commands and as a Node program for fork. Both say the same things in the same bytes, so a case can move
// between functions without changing what is compared.

/** The step kinds, as the generator makes them. */
export const STEP_KINDS = ['out', 'err', 'chatty', 'flood', 'close', 'write0', 'readIn', 'sleep', 'ident', 'trap', 'bg', 'send'];

const lines = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('\\n');

/** The lines a flood step writes for as long as it lasts, on stdout and on stderr: how many reach the parent
 * depends on timing, so the campaign compares only that they did (campaign.mjs). */
export const FLOOD_OUT = 'q'.repeat(63);
export const FLOOD_ERR = 'j'.repeat(63);

/** One step as sh (dash) text. */
function shStep(s) {
  if ('out' in s) return `printf '${lines('o', s.out)}\\n'`;
  if ('err' in s) return `printf '${lines('e', s.err)}\\n' >&2`;
  if ('chatty' in s) return `head -c ${s.chatty * 1024} /dev/zero | tr '\\0' o; head -c ${s.chatty * 1024} /dev/zero | tr '\\0' e >&2`;
  if ('flood' in s)
    return `end=$(($(date +%s%N) / 1000000 + ${s.flood})); while [ $(($(date +%s%N) / 1000000)) -lt $end ]; do i=0; while [ $i -lt 50 ]; do echo ${FLOOD_OUT}; echo ${FLOOD_ERR} >&2; i=$((i + 1)); done; done`;
  if ('close' in s) return `exec ${s.close}>&-`;
  if ('write0' in s) return s.write0 === 'direct' ? 'echo w0 >&0' : `(echo w0 >&0) 2>/dev/null; echo "w0=$?" >&2`;
  if ('readIn' in s) return `printf 'in['; cat; printf ']\\n'`;
  if ('sleep' in s) return `sleep ${(s.sleep / 1000).toFixed(3)}`;
  if ('ident' in s)
    return [
      // the shell's own mask and ignored signals first, read by builtins: dash blocks every signal around each
      // fork and clears its mask after it, so an external command reading them raced with its parent (a grep saw
      // SigBlk fffffffe7ffbfeff in 5 of 1,500 runs on an idle machine; in CI it was reported as a difference)
      'while IFS= read -r l; do case $l in SigBlk:*|SigIgn:*) printf \'%s\\n\' "$l";; esac; done </proc/$$/status',
      'set -- $(cat /proc/$$/stat)',
      '[ "$5" = "$$" ] && echo pgid-leader || echo pgid-inherited',
      '[ "$6" = "$$" ] && echo sid-leader || echo sid-inherited',
      `printf 'argv:'; tr '\\0' ' ' </proc/$$/cmdline; echo`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: sh parameter expansions
      'echo "cwd=$(pwd) FOO=${FOO-unset} PATH=${PATH-unset} IPC=${NODE_CHANNEL_FD+set} umask=$(umask)"',
      `echo "fds: $(ls /proc/$$/fd | sort -n | tr '\\n' ' ')"`,
    ].join('\n');
  if ('trap' in s) return `trap '' ${s.trap}`;
  if ('bg' in s) return `sleep ${(s.bg / 1000).toFixed(3)} &`;
  if ('send' in s) return ':';
  if ('exit' in s) return `exit ${s.exit}`;
  if ('kill' in s) return `kill -s ${s.kill} $$; sleep 1`;
  return ':';
}

/** The whole child as a sh script body (no #! line). */
export function shScript(steps) {
  return `${steps.map(shStep).join('\n')}\n`;
}

/** The child as a CommonJS program for fork: it reads its steps from argv[2]. */
export const FORK_CHILD = `'use strict';
const fs = require('node:fs');
const steps = JSON.parse(process.argv[2] || '[]');
const wait = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const w = (fd, s) => { try { fs.writeSync(fd, s); return 0; } catch (e) { return e.code; } };
const lines = (p, n) => Array.from({ length: n }, (_, i) => p + i).join('\\n') + '\\n';
(async () => {
  for (const s of steps) {
    if ('out' in s) w(1, lines('o', s.out));
    else if ('err' in s) w(2, lines('e', s.err));
    else if ('chatty' in s) { w(1, 'o'.repeat(s.chatty * 1024)); w(2, 'e'.repeat(s.chatty * 1024)); }
    else if ('flood' in s) { const end = Date.now() + s.flood; while (Date.now() < end) { w(1, 'q'.repeat(63) + '\\n'); w(2, 'j'.repeat(63) + '\\n'); wait(1); } }
    else if ('close' in s) { try { fs.closeSync(s.close); } catch {} }
    else if ('write0' in s) { const r = w(0, 'w0\\n'); if (s.write0 !== 'direct') w(2, 'w0=' + r + '\\n'); }
    else if ('readIn' in s) { let d = ''; try { d = fs.readFileSync(0, 'latin1'); } catch (e) { d = e.code; } w(1, 'in[' + d + ']\\n'); }
    else if ('sleep' in s) wait(s.sleep);
    else if ('ident' in s) {
      w(1, fs.readFileSync('/proc/self/status', 'utf8').split('\\n').filter((l) => /^Sig(Ign|Blk)/.test(l)).join('\\n') + '\\n');
      const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
      w(1, (f[2] === String(process.pid) ? 'pgid-leader' : 'pgid-inherited') + '\\n' + (f[3] === String(process.pid) ? 'sid-leader' : 'sid-inherited') + '\\n');
      w(1, 'argv:' + process.argv0 + ' cwd=' + process.cwd() + ' FOO=' + (process.env.FOO ?? 'unset') + ' PATH=' + (process.env.PATH ?? 'unset') + ' IPC=' + (process.env.NODE_CHANNEL_FD === undefined ? '' : 'set') + ' connected=' + process.connected + '\\n');
    }
    else if ('trap' in s) process.on('SIG' + s.trap, () => {});
    else if ('bg' in s) { const t = setTimeout(() => {}, s.bg); t.unref(); }
    else if ('send' in s) { if (process.send) await new Promise((r) => process.send({ hello: 'parent', n: 1 }, r)); }
    else if ('exit' in s) process.exit(s.exit);
    else if ('kill' in s) { process.kill(process.pid, 'SIG' + s.kill); wait(1000); }
  }
  if (process.connected) process.disconnect();
})();
`;
