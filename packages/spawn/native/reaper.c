#include "reaper.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int wake_fd = -1;
static int *fds;
static int n_fds, cap_fds;

static void *reaper_main(void *arg) {
    (void)arg;
    struct pollfd *pf = NULL;
    int cap = 0;
    for (;;) {
        pthread_mutex_lock(&mu);
        int n = n_fds + 1;
        if (n > cap) {
            struct pollfd *np = realloc(pf, (size_t)n * sizeof *pf);
            if (np) { pf = np; cap = n; }
        }
        if (n > cap) n = cap;
        pf[0] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
        for (int i = 1; i < n; i++) pf[i] = (struct pollfd){.fd = fds[i - 1], .events = POLLIN};
        pthread_mutex_unlock(&mu);
        if (poll(pf, (nfds_t)n, -1) < 0) continue;
        if (pf[0].revents) {
            uint64_t v;
            while (read(wake_fd, &v, sizeof v) < 0 && errno == EINTR) {}
        }
        for (int i = 1; i < n; i++) {
            if (!pf[i].revents) continue;
            siginfo_t si;
            memset(&si, 0, sizeof si);
            int r = waitid((idtype_t)P_PIDFD, (id_t)pf[i].fd, &si, WEXITED | WNOHANG);
            if (r == 0 && si.si_pid == 0) continue;
            pthread_mutex_lock(&mu);
            for (int j = 0; j < n_fds; j++)
                if (fds[j] == pf[i].fd) { fds[j] = fds[--n_fds]; break; }
            pthread_mutex_unlock(&mu);
            close(pf[i].fd);
        }
    }
    return NULL;
}

static int start_locked(void) {
    Dl_info info;
    if (dladdr((void *)fl_reaper_adopt, &info) == 0 || !info.dli_fname) return ENOENT;
    if (!dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE)) return ENOENT;
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake_fd < 0) return errno;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the thread takes no signal meant for the process */
    pthread_t t;
    int err = pthread_create(&t, &attr, reaper_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (err) {
        close(wake_fd);
        wake_fd = -1;
    }
    return err;
}

int fl_reaper_adopt(int pidfd) {
    pthread_mutex_lock(&mu);
    int err = wake_fd < 0 ? start_locked() : 0;
    if (!err && n_fds == cap_fds) {
        int cap = cap_fds ? cap_fds * 2 : 16;
        int *nf = realloc(fds, (size_t)cap * sizeof *nf);
        if (nf) { fds = nf; cap_fds = cap; }
        else err = ENOMEM;
    }
    if (!err) fds[n_fds++] = pidfd;
    pthread_mutex_unlock(&mu);
    if (err) { close(pidfd); return err; }
    uint64_t one = 1;
    while (write(wake_fd, &one, sizeof one) < 0 && errno == EINTR) {}
    return 0;
}
