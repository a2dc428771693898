/* What this machine offers beyond the addon's floor (glibc 2.17, Linux 5.4): C library functions newer than
 * the floor, looked up at run time (dlsym) so that one binary loads on every glibc from 2.17 on, and the
 * version of the libuv that runs Node's event loop. Filled once, at load (fl_compat_init). */
#ifndef FORKLAB_COMPAT_H
#define FORKLAB_COMPAT_H

#include <spawn.h>
#include <sys/types.h>

/* For a function with an atomic read-modify-write: on aarch64 its atomics are compiled inline (load/store-exclusive
 * loops, which every ARMv8 CPU has) instead of as calls to the compiler's __aarch64_* helpers. Zig's clang outlines
 * them whatever its command line says, and the helpers come in Zig's compiler_rt, whose memcpy and memset would then
 * replace glibc's in the addon. GCC has the attribute from 10 on; clang ignores it with a warning where unknown. */
#if defined(__aarch64__) && (defined(__clang__) || __GNUC__ >= 10)
#define FL_INLINE_ATOMICS __attribute__((target("no-outline-atomics")))
#else
#define FL_INLINE_ATOMICS
#endif

#ifndef POSIX_SPAWN_SETSID
#define POSIX_SPAWN_SETSID 0x80 /* glibc 2.26; its value on Linux */
#endif

typedef int (*fl_addchdir_fn)(posix_spawn_file_actions_t *, const char *);
typedef int (*fl_pidfd_spawn_fn)(int *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                                 char *const[], char *const[]);
typedef pid_t (*fl_pidfd_getpid_fn)(int);

typedef struct {
    int glibc_major, glibc_minor;        /* 0.0 when the C library is not glibc */
    fl_addchdir_fn addchdir;             /* posix_spawn_file_actions_addchdir_np, glibc 2.29 (NULL: absent) */
    fl_pidfd_spawn_fn pidfd_spawn;       /* glibc 2.39, with pidfd_getpid (NULL: absent, or the kernel lacks clone3) */
    fl_pidfd_getpid_fn pidfd_getpid;
    int setsid;                          /* POSIX_SPAWN_SETSID is understood (glibc 2.26) */
    int dup2_self_unsets_cloexec;        /* adddup2(fd, fd) clears FD_CLOEXEC in the child (glibc 2.29, Austin Group 411) */
    int spawn_reports_errors;            /* posix_spawn is clone(CLONE_VM|CLONE_VFORK) and reports exec errors (glibc 2.24) */
    unsigned uv_version;                 /* uv_version() of the running Node: 0x013401 is 1.52.1 */
    int uv_pipe_buffers;                 /* libuv >= 1.51 sets SO_RCVBUF/SO_SNDBUF to 64 KiB on its stdio pipes */
} fl_compat_t;

extern fl_compat_t fl_compat;

/* Idempotent; thread-safe (every environment that loads the addon calls it). */
void fl_compat_init(void);

/* Whether posix_spawn reports an exec failure to the parent here: 1 yes; 0 no, it ran as a plain fork whose
 * child could not tell (CPU emulation such as qemu-user: CLONE_VFORK without a shared address space, or glibc < 2.24); -errno
 * when no child could be started to find out (tried again at the next call). One probe a process. */
int fl_compat_exec_errors_reported(void);

/* pidfd_spawn failed with ENOSYS (a kernel without clone3): posix_spawn and pidfd_open from now on. */
void fl_compat_no_pidfd_spawn(void);

/* The name Node gives a signal number (its signo_string): "SIGTERM", ...; "" for one it has no name for (the
 * real-time signals), as Node's. */
const char *fl_signal_name(int sig);

#endif
