/* forward.c - ERGO_FORWARD=nvtx,itt: every region push and pop also opens and closes a range in
 * NVTX (nvtxRangePushA / nvtxRangePop of libnvToolsExt.so.1, or the library ERGO_FORWARD_NVTX_LIB
 * names) and a task in Intel ITT (__itt_task_begin / __itt_task_end of the library
 * ERGO_FORWARD_ITT_LIB, INTEL_LIBITTNOTIFY64 or libittnotify.so names).  The libraries are opened
 * with dlopen at ergo_init, so ergo links neither; with ERGO_FORWARD unset nothing is opened and no
 * hook is attached.  The hooks run on the thread that pushes, so ranges nest per thread as NVTX's
 * and ITT's own do. */
#include "runtime/forward.h"

#include "util/log.h"

#include <ergo.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The ITT types, as ittnotify.h declares them (only pointers and the id's layout are used). */
typedef struct itt_domain itt_domain;
typedef struct itt_string_handle itt_string_handle;
typedef struct {
  unsigned long long d1, d2, d3;
} itt_id;

static struct {
  int attached, slot;
  void *nvtx_lib, *itt_lib;
  int (*nvtx_push)(const char *);
  int (*nvtx_pop)(void);
  itt_domain *domain;
  itt_string_handle *(*itt_handle)(const char *);
  void (*itt_begin)(const itt_domain *, itt_id, itt_id, itt_string_handle *);
  void (*itt_end)(const itt_domain *);
} F;

static void enter(void *ctx, ergo_region *r, int level) {
  (void)ctx;
  (void)level;
  const char *name = ergo_region_name(r);
  if (F.nvtx_push) F.nvtx_push(name);
  if (F.itt_begin) {
    /* ITT's string handles are interned by the library: one per distinct name. */
    itt_string_handle *h = F.itt_handle(name);
    itt_id null = {0, 0, 0};
    F.itt_begin(F.domain, null, null, h);
  }
}

/* Closed in the reverse order of opening, so each tool's nesting holds. */
static void exit_(void *ctx, ergo_region *r, int level, uint64_t ns) {
  (void)ctx;
  (void)r;
  (void)level;
  (void)ns;
  if (F.itt_end) F.itt_end(F.domain);
  if (F.nvtx_pop) F.nvtx_pop();
}

/* dlopen the first of env's value or def; NULL with one warning line naming what was tried. */
static void *open_lib(const char *tool, const char *env, const char *alt, const char *def,
                      const char *fix) {
  const char *path = getenv(env);
  if (!path || !*path) path = alt ? getenv(alt) : NULL;
  if (!path || !*path) path = def;
  void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    ergo__warn("ERGO_FORWARD=%s: cannot load '%s' (%s); %s ranges are not forwarded (fix: %s, or "
               "set %s to the library's path)",
               tool, path, why ? why : "no reason given", tool, fix, env);
  }
  return lib;
}

static void *sym(void *lib, const char *tool, const char *name, int *missing) {
  void *p = dlsym(lib, name);
  if (!p && !*missing) {
    ergo__warn("ERGO_FORWARD=%s: the library has no %s; %s ranges are not forwarded (fix: point "
               "ERGO_FORWARD_%s_LIB at the real %s library)",
               tool, name, tool, strcmp(tool, "nvtx") == 0 ? "NVTX" : "ITT",
               strcmp(tool, "nvtx") == 0 ? "libnvToolsExt" : "libittnotify");
    *missing = 1;
  }
  return p;
}

static void start_nvtx(void) {
  F.nvtx_lib = open_lib("nvtx", "ERGO_FORWARD_NVTX_LIB", NULL, "libnvToolsExt.so.1",
                        "install the CUDA toolkit's libnvToolsExt.so.1");
  if (!F.nvtx_lib) return;
  int missing = 0;
  void *push = sym(F.nvtx_lib, "nvtx", "nvtxRangePushA", &missing);
  void *pop = sym(F.nvtx_lib, "nvtx", "nvtxRangePop", &missing);
  if (missing) {
    dlclose(F.nvtx_lib);
    F.nvtx_lib = NULL;
    return;
  }
  *(void **)&F.nvtx_push = push;
  *(void **)&F.nvtx_pop = pop;
}

static void start_itt(void) {
  F.itt_lib = open_lib("itt", "ERGO_FORWARD_ITT_LIB", "INTEL_LIBITTNOTIFY64", "libittnotify.so",
                       "set INTEL_LIBITTNOTIFY64 as VTune does");
  if (!F.itt_lib) return;
  int missing = 0;
  itt_domain *(*domain)(const char *);
  *(void **)&domain = sym(F.itt_lib, "itt", "__itt_domain_create", &missing);
  void *handle = sym(F.itt_lib, "itt", "__itt_string_handle_create", &missing);
  void *begin = sym(F.itt_lib, "itt", "__itt_task_begin", &missing);
  void *end = sym(F.itt_lib, "itt", "__itt_task_end", &missing);
  if (!missing) F.domain = domain("ergo");
  if (missing || !F.domain) {
    if (!missing)
      ergo__warn("ERGO_FORWARD=itt: __itt_domain_create(\"ergo\") returned NULL; ITT tasks are "
                 "not forwarded (fix: run under a collector, e.g. VTune)");
    dlclose(F.itt_lib);
    F.itt_lib = NULL;
    return;
  }
  *(void **)&F.itt_handle = handle;
  *(void **)&F.itt_begin = begin;
  *(void **)&F.itt_end = end;
}

void ergo__forward_start(void) {
  const char *v = getenv("ERGO_FORWARD");
  if (!v || !*v) return;
  int nvtx = 0, itt = 0;
  const char *p = v;
  while (*p) {
    size_t n = strcspn(p, ",");
    if (n == 4 && strncmp(p, "nvtx", 4) == 0)
      nvtx = 1;
    else if (n == 3 && strncmp(p, "itt", 3) == 0)
      itt = 1;
    else if (n == 4 && strncmp(p, "none", 4) == 0)
      ;
    else
      ergo__warn("ERGO_FORWARD='%s': '%.*s' is not a tool ergo forwards to; it is ignored (fix: a "
                 "comma list of nvtx and itt, or none)",
                 v, (int)n, p);
    p += n;
    if (*p == ',') p++;
  }
  if (nvtx) start_nvtx();
  if (itt) start_itt();
  if (!F.nvtx_push && !F.itt_begin) return;
  ergo_hooks h = {enter, exit_, NULL, NULL, NULL};
  if (ergo_hooks_attach(&h, &F.slot) == 0) F.attached = 1;
}

void ergo__forward_stop(void) {
  if (F.attached) ergo_hooks_detach(F.slot);
  /* The libraries stay loaded: a tool may still hold the names it was given. */
  F = (__typeof__(F)){0};
}
