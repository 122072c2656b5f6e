/* dashboard.h - what libergo hands libergo-dashboard (dashboard/server.c), the embedded web
 * server it dlopens when ERGO_DASHBOARD is set: the snapshot functions of the public API as a
 * table, so the server links no libergo (a program may have linked libergo statically) and
 * libergo links no libmicrohttpd. */
#ifndef ERGO_RUNTIME_DASHBOARD_H
#define ERGO_RUNTIME_DASHBOARD_H

#include "ergo.h"

#include <stddef.h>

/* Raised whenever the table or the functions' meaning change. */
#define ERGO__DASHBOARD_ABI 1

typedef struct ergo__dashboard_host {
  int abi;     /* ERGO__DASHBOARD_ABI */
  size_t size; /* sizeof(ergo__dashboard_host) */
  const ergo_snapshot *(*acquire)(void);
  void (*release)(const ergo_snapshot *s);
  char *(*json)(const ergo_snapshot *s, const char *part);
  int (*control)(const char *policy, const char *objective, char *why, size_t whylen);
  /* One line through ergo's log (warn 1: a counted warning; 0: an information line). */
  void (*say)(int warn, const char *line);
} ergo__dashboard_host;

/* libergo-dashboard's entry points, found with dlsym. */
#define ERGO__DASHBOARD_START "ergo_dashboard_start"
#define ERGO__DASHBOARD_STOP "ergo_dashboard_stop"
/* Serve on addr (an IPv4 address) and port (0: a free one) from the server's own thread; control
 * 0: read-only (a change is refused with 403).  The URL with its token goes into url.  0, or -1
 * with one line in why (the port is busy, ...). */
typedef int (*ergo__dashboard_start_fn)(const ergo__dashboard_host *host, const char *addr,
                                        int port, int control, char *url, size_t urllen, char *why,
                                        size_t whylen);
/* Stop serving (waits for the request in progress). */
typedef void (*ergo__dashboard_stop_fn)(void);

#endif
