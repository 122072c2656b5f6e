/* summary.h - what a tuning run says at its end: per region the setting chosen, the energy it is
 * expected to save and the time it is expected to change against the untuned baseline (from the
 * model's measurements), then where the model went. */
#ifndef ERGO_POLICIES_SUMMARY_H
#define ERGO_POLICIES_SUMMARY_H

#include "policies/model.h"

/* The summary of m as lines of text (malloc'd, each ending in '\n'; NULL on no memory):
 *   "tuning summary (POLICY, OBJECTIVE): N regions, expected per execution against the baseline:"
 *   "  region   setting   energy saved   time"
 *   "  PATH     cpu=...,uncore=...,threads=...   12.3%   +2.1%"   ("-" where unmeasured)
 * then `tail` ("tuning model written to m.json") when not NULL.  only[i] == 0 leaves out region
 * i (only NULL: every region).  A model without regions gives the tail alone. */
char *ergo__summary_text(const ergo__model *m, const int *only, const char *tail);

/* A setting as ERGO_FIXED writes it ("cpu=1600000,uncore=1200000,threads=20"), so it can be
 * pasted there; "inherited" when it sets no knob. */
const char *ergo__summary_setting(const ergo__config *c, char *out, size_t len);

/* The same, each line through ergo__info ("ergo: ..." on stderr). */
void ergo__summary_print(const ergo__model *m, const int *only, const char *tail);

#endif
