/* fake_itt.c - a stand-in for an ITT library exporting the public API's symbols: __itt_task_begin
 * and __itt_task_end append "push NAME" and "pop" lines to the file FAKE_ITT_OUT names; the domain
 * and string handles are checked to be the ones this library handed out. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
} __itt_domain;
typedef struct {
  char name[256];
} __itt_string_handle;
typedef struct {
  unsigned long long d1, d2, d3;
} __itt_id;

static __itt_domain domain = {NULL};

static void line(const char *what, const char *name) { record_line("FAKE_ITT_OUT", what, name); }

__itt_domain *__itt_domain_create(const char *name) {
  domain.name = name;
  return &domain;
}

/* Interned, as the real library does: one handle per distinct name. */
static __itt_string_handle handles[64];
static int nhandles;

__itt_string_handle *__itt_string_handle_create(const char *name) {
  for (int i = 0; i < nhandles; i++)
    if (strcmp(handles[i].name, name) == 0) return &handles[i];
  if (nhandles == 64) return NULL;
  snprintf(handles[nhandles].name, sizeof handles[nhandles].name, "%s", name);
  return &handles[nhandles++];
}

void __itt_task_begin(const __itt_domain *d, __itt_id id, __itt_id parent,
                      __itt_string_handle *name) {
  if (d != &domain || id.d1 || parent.d1 || !name) {
    line("bad", "task_begin");
    return;
  }
  line("push", name->name);
}

void __itt_task_end(const __itt_domain *d) { line(d == &domain ? "pop" : "bad task_end", NULL); }
