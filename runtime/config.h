/* config.h - the runtime's configuration: defaults, ERGO_* variables and validation of a
 * caller's ergo_config. */
#ifndef ERGO_RUNTIME_CONFIG_H
#define ERGO_RUNTIME_CONFIG_H

#include "ergo.h"

/* Every field of a caller's configuration checked: 0, or ERGO_EINVAL after one line per bad
 * field naming it, its value and what is accepted. */
int ergo__config_check(const ergo_config *cfg);

#endif
