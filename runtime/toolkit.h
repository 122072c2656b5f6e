/* toolkit.h - the internal library's header: what the `ergo` command and the benchmarks need
 * beyond the public API (the objective grammar, ERGO_SWEEP's grid, the knob table and settings
 * stack, the tuning-model file, the meters, the sim node), so that `ergo run --objective` and
 * `ergo sweep --grid` accept exactly what the library accepts and a benchmark times the very
 * code the library runs.  Only tools/ and bench/ include it; they link the static library
 * (libergo.a), whose objects are built once. */
#ifndef ERGO_RUNTIME_TOOLKIT_H
#define ERGO_RUNTIME_TOOLKIT_H

#include "energy/meter.h"
#include "knobs/knobs.h"
#include "optimizer/objective.h"
#include "optimizer/space.h"
#include "optimizer/sweep.h"
#include "policies/model.h" /* the one writer (and reader) of the tuning-model file */
#include "sim/node.h"
#include "util/atomic_file.h" /* ergo report: the page and pictures, written whole */
#include "util/limit.h"       /* ergo compare: the largest report it reads */
#include "util/path.h"        /* ergo run: is the report the model's file */

#endif
