/* A process-wide thread that reaps children whose owner (a worker thread's environment) went away while
 * they ran, so that no zombie is left behind. It pins the addon in memory first (RTLD_NODELETE): its
 * code must outlive every environment that loaded it. */
#ifndef FORKLAB_REAPER_H
#define FORKLAB_REAPER_H

/* Takes ownership of pidfd (closed once the child is reaped). 0, or an errno value (pidfd then closed
 * and the child left to the process's exit). */
int fl_reaper_adopt(int pidfd);

#endif
