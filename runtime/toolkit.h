/* toolkit.h - the internal library's header: what the `ergo` command needs beyond the public API
 * (the objective grammar, ERGO_SWEEP's grid, the knob table and the tuning-model file), so that
 * `ergo run --objective` and `ergo sweep --grid` accept exactly what the library accepts.  Only
 * tools/ includes it; it links the static library (libergo.a), whose objects are built once. */
#ifndef ERGO_RUNTIME_TOOLKIT_H
#define ERGO_RUNTIME_TOOLKIT_H

#include "knobs/knobs.h"
#include "optimizer/objective.h"
#include "optimizer/space.h"
#include "optimizer/sweep.h"

#endif
