/* core/report/kp_waitchain.h: wait chains as text, for `show` and the TUI.
 *
 * The chains themselves are in the model (kp_report.chains, each thread's
 * blocked_* fields, filled by the parser); these functions only describe
 * them, appending to the caller's kp_sb (false when out of memory, sticky as
 * kp_sb is).  The text holds report strings (process names, states) as they
 * are: the caller applies the one text-safety rule (kp_utf8.h) before it
 * reaches a terminal. */
#ifndef KP_WAITCHAIN_H
#define KP_WAITCHAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "kp_report.h"
#include "kp_strbuf.h"

/* Scheduled above its base priority: promoted (by a waiter's turnstile,
 * an RW lock, ...). */
bool kp_waitchain_promoted(const kp_thread *t);

/* One thread: "NAME[PID] TID" (NAME "?" when the process has none). */
bool kp_waitchain_thread(const kp_report *r, kp_thread_ref ref, kp_sb *out);

/* A thread's state in a few words: "TH_RUN, priority 47 (promoted from 31)". */
bool kp_waitchain_state(const kp_thread *t, kp_sb *out);

/* A whole chain on one line: each link, then how it ends:
 *   "a[1] 10 -> b[2] 20 (TH_RUN, priority 47 (promoted from 31))"
 *   "... -> back to a[1] 10: a deadlock"
 *   "... -> pid 400 (NAME)"   or   "... -> thread 99 (not in the report)" */
bool kp_waitchain_format(const kp_report *r, const kp_chain *c, kp_sb *out);

#endif
