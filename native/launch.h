/* The ways to start a child, each timed from the call until the child is reaped by waitpid. */
#ifndef FORKLAB_LAUNCH_H
#define FORKLAB_LAUNCH_H
#include <stdint.h>

enum fl_method { FL_FORK_EXEC, FL_VFORK_EXEC, FL_POSIX_SPAWN, FL_CLONE_VFORK, FL_FORK_EXIT };
extern const char *const fl_method_names[]; /* "fork-exec", "vfork-exec", "posix-spawn", "clone-vfork", "fork-exit", NULL */

/* Prepares the clone stack and the target's argv/envp. envp may be NULL (empty environment). 0 or -1 (error emitted). */
int fl_launch_init(const char *target, char *const *envp);
/* Prepares the launch of the user's program instead: argv = target, then the probe's arguments after "--"; the
 * probe's environment; its stdin, stdout and stderr on /dev/null (the probe's own stdin and stdout carry the
 * protocol, and the program's output must not reach them). 0 or -1 (error emitted). */
int fl_launch_init_user(const char *target);
/* One child by method; *ns = time from the call until waitpid returned. 0, or -1 with an error line emitted
 * (the failed call and errno; a child that did not exit 0 is an error too). */
int fl_launch_once(enum fl_method m, uint64_t *ns);
/* Runs n launches, emitting one samples line named after the method. */
int fl_launch_batch(enum fl_method m, long n, int warmup);

/* Several methods timed in one process, round by round. */
#define FL_MAX_METHODS 8
typedef struct {
    enum fl_method methods[FL_MAX_METHODS];
    int n;
    long block;     /* calls of each method per round */
    uint64_t order; /* the rounds' shuffle (xorshift64*), running on across batches */
} fl_rounds;
/* The rounds' shuffle, shared by every case that interleaves: the order-seed=N argument (default 1) as the state of
 * a xorshift64* generator, and seq[0..n-1] set to 0..n-1 in a fresh Fisher-Yates order drawn from it. */
uint64_t fl_order_seed(void);
void fl_shuffle(uint64_t *state, int *seq, int n);

/* From the case's arguments: method=M, or methods=M,M... (none twice), block=N (default 1), order-seed=N.
 * 0, or -1 with a usage error emitted. */
int fl_rounds_parse(fl_rounds *r, const char *default_method);
/* 1 when some method execs a target. */
int fl_rounds_exec(const fl_rounds *r);
/* n rounds: in each, every method `block` calls, the methods in a fresh shuffled order; one samples line per method,
 * whose samples [k * block, (k + 1) * block) belong to round k. One method: a plain batch of n * block launches. */
int fl_rounds_batch(fl_rounds *r, long n, int warmup);

#endif
