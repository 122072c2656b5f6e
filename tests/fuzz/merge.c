/* merge.c - fuzzes the MPI merge's pack decoder (core/merge.c): what rank 0 reads from every
 * other rank's gathered bytes. */
#include "fuzz.h"

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  ergo__merge_unpack_check((const char *)data, size);
  return 0;
}
