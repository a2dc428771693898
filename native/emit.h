/* The probe's JSON Lines, as probe.c and emit.c write them: a string quoted and escaped, and the end of a line
 * (flushed: the runner reads each line as it comes). */
#ifndef FORKLAB_EMIT_H
#define FORKLAB_EMIT_H

void fl_json_string(const char *s);
void fl_end_line(void);

#endif
