/* server.c - libergo-dashboard: the embedded web server that libergo dlopens when ERGO_DASHBOARD
 * is set (runtime/introspect.c).  libmicrohttpd serves from its own thread: the page and Chart.js
 * embedded at build time (web/), the snapshots as JSON, and changes of policy and objective,
 * which libergo applies at the next ergo_step.  Every request carries the token printed with the
 * URL (403 without it); bodies and URLs have a size limit; only the embedded files exist, by
 * name, so no path reaches the file system. */
#include "runtime/dashboard.h"
#include "web/assets.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_URL 1024
#define MAX_BODY 4096
#define TOKEN_BYTES 16

static struct {
  struct MHD_Daemon *d;
  int fd;
  const ergo__dashboard_host *h;
  int control;
  char token[2 * TOKEN_BYTES + 1];
  char *page; /* dashboard.html with the token in its links */
  size_t page_len;
} S = {.fd = -1};

/* A connection's state between the calls of one request. */
typedef struct conn {
  size_t body; /* bytes of body seen */
} conn;

/* Adds each argument's length to *cls (the URL's query, which MHD has taken apart). */
static enum MHD_Result arg_len(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value) {
  (void)kind;
  *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 2;
  return MHD_YES;
}

static int token_ok(struct MHD_Connection *c) {
  const char *t = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
  if (!t) t = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Ergo-Token");
  if (!t || strlen(t) != sizeof S.token - 1) return 0;
  unsigned char diff = 0; /* in constant time */
  for (size_t i = 0; i < sizeof S.token - 1; i++) diff |= (unsigned char)(t[i] ^ S.token[i]);
  return diff == 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             const void *data, size_t len, enum MHD_ResponseMemoryMode mode) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, mode);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, "Content-Type", type);
  MHD_add_response_header(r, "Cache-Control", "no-store");
  MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
  /* Nothing but this server: no CDN, no other host, no inline script. */
  MHD_add_response_header(r, "Content-Security-Policy",
                          "default-src 'none'; script-src 'self'; style-src 'self'; "
                          "connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
  enum MHD_Result rc = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return rc;
}

/* {"error": msg} with the status. */
static enum MHD_Result fail(struct MHD_Connection *c, unsigned status, const char *msg) {
  char *buf = malloc(strlen(msg) * 2 + 32);
  if (!buf) return MHD_NO;
  char *o = buf + sprintf(buf, "{\"error\":\"");
  for (const char *m = msg; *m; m++) {
    if (*m == '"' || *m == '\\') *o++ = '\\';
    *o++ = (unsigned char)*m < 0x20 ? ' ' : *m;
  }
  strcpy(o, "\"}");
  return reply(c, status, "application/json", buf, strlen(buf), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result api_get(struct MHD_Connection *c, const char *part) {
  if (strcmp(part, "state") && strcmp(part, "regions") && strcmp(part, "timeline") &&
      strcmp(part, "nodes") && strcmp(part, "ranks") && strcmp(part, "all"))
    return fail(c, MHD_HTTP_NOT_FOUND,
                "no such endpoint: /api/state, regions, timeline, nodes, ranks or all");
  const ergo_snapshot *s = S.h->acquire();
  if (!s) return fail(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no ergo_step yet: nothing published");
  char *j = S.h->json(s, part);
  S.h->release(s);
  if (!j) return fail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
  return reply(c, MHD_HTTP_OK, "application/json", j, strlen(j), MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result api_control(struct MHD_Connection *c) {
  if (!S.control)
    return fail(c, MHD_HTTP_FORBIDDEN,
                "the dashboard is read-only (ERGO_DASHBOARD_CONTROL=0): nothing changes the tuner");
  const char *pol = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "policy");
  const char *obj = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "objective");
  char why[1024] = "";
  if (S.h->control(pol, obj, why, sizeof why) != 0) return fail(c, MHD_HTTP_BAD_REQUEST, why);
  static const char ok[] = "{\"accepted\":true,\"applied\":\"at the next ergo_step\"}";
  return reply(c, MHD_HTTP_OK, "application/json", ok, sizeof ok - 1, MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  (void)cls, (void)version, (void)upload;
  conn *k = *con_cls;
  if (!k) { /* the first call: headers only */
    if (!(k = calloc(1, sizeof *k))) return MHD_NO;
    *con_cls = k;
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > MAX_BODY)
      return fail(c, 413, "the request body is over 4096 bytes");
    return MHD_YES;
  }
  if (*upload_size) { /* a body: counted, never kept (no endpoint reads one) */
    k->body += *upload_size;
    *upload_size = 0;
    if (k->body > MAX_BODY) return fail(c, 413, "the request body is over 4096 bytes");
    return MHD_YES;
  }
  size_t len = strlen(url);
  MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, arg_len, &len);
  if (len > MAX_URL) return fail(c, MHD_HTTP_URI_TOO_LONG, "the URL is over 1024 bytes");
  if (!token_ok(c))
    return fail(c, MHD_HTTP_FORBIDDEN, "no valid token: open the URL ergo printed at start");
  int get = !strcmp(method, MHD_HTTP_METHOD_GET), post = !strcmp(method, MHD_HTTP_METHOD_POST);
  if (!get && !post) return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and POST");
  if (strstr(url, "..") || strchr(url, '\\') || strstr(url, "//"))
    return fail(c, MHD_HTTP_BAD_REQUEST, "the path leaves the dashboard's files");
  if (!strcmp(url, "/api/control")) {
    if (!post) return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, "/api/control takes POST");
    return api_control(c);
  }
  if (!get) return fail(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only /api/control takes POST");
  if (!strncmp(url, "/api/", 5)) return api_get(c, url + 5);
  if (!strcmp(url, "/") || !strcmp(url, "/dashboard.html"))
    return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", S.page, S.page_len,
                 MHD_RESPMEM_PERSISTENT);
  const char *name = url + 1;
  if (url[0] != '/' || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789._-") != strlen(name))
    return fail(c, MHD_HTTP_NOT_FOUND, "no such file");
  const ergo__web_asset *a = ergo__web_asset_find(name);
  if (!a) return fail(c, MHD_HTTP_NOT_FOUND, "no such file");
  return reply(c, MHD_HTTP_OK, a->type, a->data, a->len, MHD_RESPMEM_PERSISTENT);
}

static void done(void *cls, struct MHD_Connection *c, void **con_cls,
                 enum MHD_RequestTerminationCode why) {
  (void)cls, (void)c, (void)why;
  free(*con_cls);
  *con_cls = NULL;
}

/* dashboard.html with every "@TOKEN@" replaced by the token. */
static char *page_with_token(size_t *len) {
  const ergo__web_asset *a = ergo__web_asset_find("dashboard.html");
  if (!a) return NULL;
  const char *mark = "@TOKEN@";
  size_t n = 0;
  for (const char *p = (const char *)a->data; (p = strstr(p, mark)); p += strlen(mark)) n++;
  char *out = malloc(a->len + n * strlen(S.token) + 1), *o = out;
  if (!out) return NULL;
  const char *p = (const char *)a->data, *q;
  while ((q = strstr(p, mark))) {
    memcpy(o, p, (size_t)(q - p));
    o += q - p;
    memcpy(o, S.token, strlen(S.token));
    o += strlen(S.token);
    p = q + strlen(mark);
  }
  strcpy(o, p);
  *len = strlen(out);
  return out;
}

EXPORT void ergo_dashboard_stop(void) {
  if (S.d) MHD_stop_daemon(S.d);
  if (S.fd >= 0) close(S.fd);
  free(S.page);
  memset(&S, 0, sizeof S);
  S.fd = -1;
}

EXPORT int ergo_dashboard_start(const ergo__dashboard_host *h, const char *addr, int port,
                                int control, char *url, size_t urllen, char *why, size_t whylen) {
  if (!h || h->abi != ERGO__DASHBOARD_ABI || h->size < sizeof *h) {
    snprintf(why, whylen,
             "libergo-dashboard is from another build of ergo (fix: install the "
             "libergo-dashboard built with this libergo)");
    return -1;
  }
  unsigned char raw[TOKEN_BYTES];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
    snprintf(why, whylen, "no random token: getrandom failed: %s", strerror(errno));
    return -1;
  }
  for (int i = 0; i < TOKEN_BYTES; i++) snprintf(S.token + 2 * i, 3, "%02x", raw[i]);
  S.h = h;
  S.control = control;
  if (!(S.page = page_with_token(&S.page_len))) {
    snprintf(why, whylen, "the dashboard page is not embedded in this build (web/)");
    ergo_dashboard_stop();
    return -1;
  }
  /* The socket is ours: a busy port says so by its errno, and port 0 learns its number. */
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)port);
  inet_pton(AF_INET, addr, &sa.sin_addr);
  S.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int on = 1;
  if (S.fd >= 0) setsockopt(S.fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (S.fd < 0 || bind(S.fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(S.fd, 16) != 0) {
    int e = errno;
    snprintf(why, whylen, "cannot listen on %s:%d: %s%s", addr, port, strerror(e),
             e == EADDRINUSE ? " (fix: another port, or 0 for a free one)" : "");
    ergo_dashboard_stop();
    return -1;
  }
  socklen_t sl = sizeof sa;
  getsockname(S.fd, (struct sockaddr *)&sa, &sl);
  S.d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle,
                         NULL, MHD_OPTION_LISTEN_SOCKET, S.fd, MHD_OPTION_NOTIFY_COMPLETED, done,
                         NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
                         MHD_OPTION_CONNECTION_LIMIT, 32u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
                         MHD_OPTION_END);
  if (!S.d) {
    snprintf(why, whylen, "libmicrohttpd could not start serving on %s:%d", addr, port);
    ergo_dashboard_stop();
    return -1;
  }
  S.fd = -1; /* the daemon closes it */
  snprintf(url, urllen, "http://%s:%d/?token=%s", addr, ntohs(sa.sin_port), S.token);
  return 0;
}
