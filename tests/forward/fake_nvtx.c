/* fake_nvtx.c - a stand-in for libnvToolsExt.so.1: nvtxRangePushA and nvtxRangePop append
 * "push NAME" and "pop" lines to the file FAKE_NVTX_OUT names, so a test sees what ergo sent. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>

static int depth;

static void line(const char *what, const char *name) { record_line("FAKE_NVTX_OUT", what, name); }

int nvtxRangePushA(const char *message) {
  line("push", message);
  return depth++;
}

int nvtxRangePop(void) {
  line("pop", NULL);
  return --depth;
}
