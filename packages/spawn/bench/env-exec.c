/* bench:env's helper: runs a program with exactly the environment given in a file of NUL-terminated entries
 * (duplicates, entries without '=', bytes that are not UTF-8: what execve allows and no shell can write).
 *   forklab-bench-env-exec ENVFILE PROGRAM [ARGS...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 127;
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 127;
    static char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    char **envp = calloc(len + 1, sizeof *envp);
    size_t n = 0;
    for (size_t off = 0; off < len; off += strlen(buf + off) + 1) envp[n++] = buf + off;
    execve(argv[2], argv + 2, envp);
    perror("execve");
    return 127;
}
