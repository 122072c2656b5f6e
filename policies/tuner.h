/* tuner.h - the tuner as the runtime sees it: start a policy on the region hooks, finish, stop. */
#ifndef ERGO_POLICIES_TUNER_H
#define ERGO_POLICIES_TUNER_H

#include "ergo.h"

/* Start the policy cfg->policy (after the knobs, before the energy layer:
 * the tuner's hooks must wrap the energy readings).  A policy that cannot
 * start says why in one line and the run continues as monitor. */
int ergo__tuner_start(const ergo_config *cfg);
/* Free the tuner (after the core's finalize, which ran the policy's finish). */
void ergo__tuner_stop(void);

#endif
