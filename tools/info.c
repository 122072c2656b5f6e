/* info.c - `ergo info`: what this machine offers ergo (topology, energy sources, knobs). */
#include "cli.h"

#include <ergo.h>

#include <stdlib.h>
#include <string.h>

/* Column of the text after "  powercap   ", so continuation lines line up. */
#define NAME_WIDTH 10
#define INDENT 2

static void info_usage(FILE *out) {
  fprintf(out, "usage: ergo info [--json]\n\n"
               "Shows the CPU topology (hwloc), every energy source ergo knows with its\n"
               "domains or the reason it is unavailable here, and which one ERGO_ENERGY=auto\n"
               "would use, and every knob (core and uncore frequency, OpenMP threads) with\n"
               "its allowed values and current value, or the reason it is unavailable.\n\n"
               "  --json   one JSON document {\"topology\":{...},\"energy\":{...},"
               "\"knobs\":[...]}\n");
}

/* A library description (ergo_energy_info_json, ergo_knobs_info_json) parsed, or NULL. */
static json_t *parsed(char *s) {
  if (!s) return NULL;
  json_t *j = json_loads(s, 0, NULL);
  free(s);
  return j;
}

static void print_topology(const json_t *t) {
  const char *err = json_string_value(json_object_get(t, "error"));
  if (err) {
    printf("Topology: unknown (%s)\n", err);
    return;
  }
  printf("Topology (hwloc):\n");
  printf("  packages    %lld\n", json_integer_value(json_object_get(t, "packages")));
  printf("  cores       %lld\n", json_integer_value(json_object_get(t, "cores")));
  printf("  PUs         %lld\n", json_integer_value(json_object_get(t, "pus")));
  printf("  NUMA nodes  %lld\n", json_integer_value(json_object_get(t, "numa_nodes")));
  const char *cpus = json_string_value(json_object_get(t, "allowed_cpus"));
  printf("  this process may use CPUs %s\n", cpus ? cpus : "(unknown: hwloc_get_cpubind failed)");
}

/* Print text, starting every line after the first at column `col`. */
static void print_indented(const char *text, int col) {
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    printf("%.*s\n", len, p);
    if (!nl) break;
    p = nl + 1;
    if (*p) printf("%*s", col, "");
  }
}

static void print_domain(const json_t *d) {
  printf("%s (", json_string_value(json_object_get(d, "name")));
  const json_t *range = json_object_get(d, "max_range_j");
  if (json_is_number(range))
    printf("range %.6f J", json_number_value(range));
  else
    printf("never wraps");
  /* core/uncore are parts of their package: shown, but summing them would count twice. */
  if (!json_is_true(json_object_get(d, "in_total"))) printf(", part of its package");
  printf(")\n");
}

static void print_source(const json_t *src) {
  const char *name = json_string_value(json_object_get(src, "name"));
  int col = INDENT + NAME_WIDTH + 1;
  printf("%*s%-*s ", INDENT, "", NAME_WIDTH, name ? name : "?");
  if (!json_is_true(json_object_get(src, "available"))) {
    const char *why = json_string_value(json_object_get(src, "reason"));
    printf("unavailable: ");
    print_indented(why ? why : "(no reason given)", col + (int)strlen("unavailable: "));
    return;
  }
  const char *label = json_string_value(json_object_get(src, "label"));
  char head[64];
  snprintf(head, sizeof head, "available%s%s%s: ", label ? " (" : "", label ? label : "",
           label ? ")" : "");
  printf("%s", head);
  const json_t *doms = json_object_get(src, "domains");
  size_t i;
  const json_t *d;
  json_array_foreach(doms, i, d) {
    if (i > 0) printf("%*s", col + (int)strlen(head), "");
    print_domain(d);
  }
  if (json_array_size(doms) == 0) printf("(no domains)\n");
}

static void print_energy(const json_t *e) {
  printf("Energy sources:\n");
  size_t i;
  const json_t *src;
  json_array_foreach(json_object_get(e, "sources"), i, src) print_source(src);
  const char *pick = json_string_value(json_object_get(e, "auto"));
  if (pick)
    printf("auto would use: %s\n", pick);
  else
    printf("auto: no energy meter; ergo measures time only (ERGO_ENERGY=estimate gives a "
           "CPU-time estimate)\n");
}

/* The work counter ERGO_WORK=instructions would read. */
static void print_work(const json_t *e) {
  const json_t *w = json_object_get(e, "work_counter");
  if (!w) return;
  printf("Work counter (ERGO_WORK=instructions; not on by default):\n");
  static const char name[] = "instructions";
  printf("%*s%s ", INDENT, "", name);
  if (json_is_true(json_object_get(w, "available"))) {
    printf("available: instructions retired in user space, every thread (perf)\n");
    return;
  }
  const char *why = json_string_value(json_object_get(w, "reason"));
  printf("unavailable: ");
  print_indented(why ? why : "(no reason given)",
                 INDENT + (int)strlen(name) + 1 + (int)strlen("unavailable: "));
}

/* "1000000 .. 2000000 kHz (11 values)", or "1 .. 2 threads (2 values)". */
static void print_knob(const json_t *k) {
  const char *name = json_string_value(json_object_get(k, "name"));
  printf("%*s%-*s ", INDENT, "", NAME_WIDTH, name ? name : "?");
  if (!json_is_true(json_object_get(k, "available"))) {
    const char *why = json_string_value(json_object_get(k, "reason"));
    printf("unavailable: ");
    print_indented(why ? why : "(no reason given)",
                   INDENT + NAME_WIDTH + 1 + (int)strlen("unavailable: "));
    return;
  }
  const json_t *vals = json_object_get(k, "values");
  const char *unit = json_string_value(json_object_get(k, "unit"));
  size_t n = json_array_size(vals);
  printf("%lld .. %lld %s (%zu values)", json_integer_value(json_array_get(vals, 0)),
         json_integer_value(json_array_get(vals, n ? n - 1 : 0)), unit ? unit : "", n);
  const json_t *cur = json_object_get(k, "current");
  if (json_is_integer(cur)) printf(", now %lld", json_integer_value(cur));
  printf("\n");
}

static void print_knobs(const json_t *k) {
  printf("Knobs:\n");
  size_t i;
  const json_t *knob;
  json_array_foreach(json_object_get(k, "knobs"), i, knob) print_knob(knob);
}

static int info_run(int argc, char **argv) {
  int as_json = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0) {
      as_json = 1;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      info_usage(stdout);
      return ERGO_CLI_OK;
    } else {
      fprintf(stderr, "ergo info: unknown %s '%s': expected --json or --help\n",
              argv[i][0] == '-' ? "option" : "argument", argv[i]);
      return ERGO_CLI_USAGE;
    }
  }
  json_t *topo = ergo_cli_topology_json();
  json_t *energy = parsed(ergo_energy_info_json());
  json_t *knobs = parsed(ergo_knobs_info_json());
  if (!topo || !energy || !knobs) {
    fprintf(stderr, "ergo info: cannot describe the energy sources and knobs (out of memory?)\n");
    json_decref(topo);
    json_decref(energy);
    json_decref(knobs);
    return ERGO_CLI_FAIL;
  }
  int rc = ERGO_CLI_OK;
  if (as_json) {
    json_t *doc = json_pack("{s:o,s:o,s:o}", "topology", topo, "energy", energy, "knobs",
                            json_incref(json_object_get(knobs, "knobs")));
    json_decref(knobs);
    char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
    if (s)
      printf("%s\n", s);
    else
      rc = ERGO_CLI_FAIL;
    free(s);
    json_decref(doc);
  } else {
    print_topology(topo);
    print_energy(energy);
    print_work(energy);
    print_knobs(knobs);
    json_decref(topo);
    json_decref(energy);
    json_decref(knobs);
  }
  return rc; /* main checks that the output was written */
}

const ergo_cli_command ergo_cli_info = {
    .name = "info",
    .summary = "topology, energy sources and what ERGO_ENERGY=auto would use",
    .run = info_run,
};
