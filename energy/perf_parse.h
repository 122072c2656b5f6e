/* perf_parse.h - parsers for the perf PMU's sysfs files, shared by perf.c, papi.c and tests. */
#ifndef ERGO_ENERGY_PERF_PARSE_H
#define ERGO_ENERGY_PERF_PARSE_H

#include <stdint.h>

typedef int ergo__perf_field_fn(void *ctx, const char *term, int *lo, int *hi);
int ergo__perf_parse_cpulist(const char *s, int *cpus, int max);
int ergo__perf_parse_format(const char *s, int *lo, int *hi);
int ergo__perf_parse_event(const char *s, ergo__perf_field_fn *field, void *ctx, uint64_t *config);
int ergo__perf_parse_scale(const char *s, double *scale);
int ergo__perf_parse_unit(const char *s);

#endif
