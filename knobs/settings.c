/* settings.c - the settings stack: apply a region's knob values on entry, the parent's on exit,
 * writing only what changes. */
#include "knobs/knobs.h"

#include "knobs/state.h"
#include "util/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Effective values per depth; 0 = the machine's own value (never changed). */
#define ERGO__SETTINGS_DEPTH 256
static struct {
  int64_t stack[ERGO__SETTINGS_DEPTH][ERGO__NKNOBS];
  int depth; /* levels in force above the bottom (the machine's own values) */
  /* The thread that started the knobs (ergo_init's): the only one that may push and pop. */
  pthread_t owner;
  int owned;
} S;

void ergo__settings_own(void) {
  S.owner = pthread_self();
  __atomic_store_n(&S.owned, 1, __ATOMIC_RELEASE);
}

/* 0 on the owning thread; otherwise one error line naming the call, and ERGO_ESTATE: the stack
 * is one per process (a knob acts on the whole node, or on the main thread's parallel regions),
 * so pushes from two threads would undo each other's values. */
static int on_owner(const char *what) {
  if (!__atomic_load_n(&S.owned, __ATOMIC_ACQUIRE) || pthread_equal(S.owner, pthread_self()))
    return 0;
  ergo__error("%s called from a thread other than the one that called ergo_init; ignored, "
              "nothing changed (fix: push and pop settings on that thread, or around the "
              "parallel part, not inside it)",
              what);
  return ERGO_ESTATE;
}

static int allowed(const ergo__knob *k, int64_t v) {
  for (int i = 0; i < k->nvalues; i++)
    if (k->values[i] == v) return 1;
  return 0;
}

int ergo__knob_settable(const ergo__knob *k, int64_t v) {
  return allowed(k, v) || (k->saved && v == k->original);
}

/* Before the first change of a knob: its files' original contents go to the
 * state file, and its value in force is remembered for the way back. */
static int save_first(ergo__knob *k) {
  if (k->saved) return 0;
  int64_t now = 0;
  int rc = k->ops->save ? k->ops->save(k) : 0;
  if (rc == ERGO_EBUSY) { /* another process tunes all of it: said by save(), never retried */
    k->left_alone = 1;
    return rc;
  }
  if (rc) return rc;
  /* After save(), which may drop domains another process holds: the value of one of ours. */
  if ((rc = k->ops->get(k, &now)) != 0) {
    ergo__error("%s: cannot read the value in force (%s); not changing it", k->row->backend,
                ergo_strerror(rc));
    return rc;
  }
  if ((rc = ergo__state_commit()) != 0) {
    ergo__error("%s: the original values could not be saved to %s (%s); not "
                "changing anything (fix: make that directory writable or set "
                "ERGO_STATE_DIR)",
                k->row->backend, ergo__state_dir(), ergo_strerror(rc));
    return rc;
  }
  k->original = now;
  k->current = now;
  k->current_valid = 1;
  k->saved = 1;
  return 0;
}

/* Put `v` in force unless it already is: no system call when nothing changes. */
static int apply(ergo__knob *k, int64_t v) {
  if (k->left_alone || (k->current_valid && k->current == v)) return 0;
  int rc = save_first(k);
  if (rc == ERGO_EBUSY && k->left_alone) return 0; /* the run goes on: it is another's knob */
  if (rc) return rc;
  if (k->current_valid && k->current == v) return 0;
  rc = k->ops->set(k, v);
  k->sets++;
  if (rc) {
    k->current_valid = 0; /* unknown now: the next apply writes again */
    ergo__error("%s: setting %lld %s failed (%s)", k->row->backend, (long long)v, k->row->unit,
                ergo_strerror(rc));
    return rc;
  }
  k->current = v;
  k->current_valid = 1;
  return 0;
}

/* Apply the effective values of stack level d (0 entries: the original). */
static int apply_level(int d) {
  int rc = 0;
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    if (!k) continue;
    int64_t v = S.stack[d][i] ? S.stack[d][i] : (k->saved ? k->original : 0);
    if (!v) continue; /* never changed: leave it */
    int r = apply(k, v);
    if (r && !rc) rc = r;
  }
  return rc;
}

int ergo__settings_push(const int64_t want[ERGO__NKNOBS]) {
  if (S.depth + 1 >= ERGO__SETTINGS_DEPTH) {
    ergo__error("ergo_setting_push: more than %d nested settings; ignored (fix: "
                "pop each setting you push)",
                ERGO__SETTINGS_DEPTH - 1);
    return ERGO_EBUSY;
  }
  /* Check everything before writing anything. */
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    if (!want[i]) continue;
    ergo__knob *k = ergo__knob_get(i);
    if (!k) {
      ergo__error("ergo_setting_push: %s=%lld but this machine has no usable "
                  "%s knob (`ergo info` says why); nothing changed",
                  ergo__knob_table[i].field, (long long)want[i], ergo__knob_table[i].backend);
      return ERGO_EIO;
    }
    if (!allowed(k, want[i])) {
      ergo__error("ergo_setting_push: %s=%lld is not a value the %s knob allows "
                  "(%lld to %lld %s, %d values); nothing changed",
                  k->row->field, (long long)want[i], k->row->backend, (long long)k->values[0],
                  (long long)k->values[k->nvalues - 1], k->row->unit, k->nvalues);
      return ERGO_EINVAL;
    }
  }
  /* A knob that cannot act here (threads inside a parallel team) inherits: not set, and the
   * value in force (what the tuner records as applied) stays the enclosing one. */
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    const ergo__knob *k = want[i] ? ergo__knob_get(i) : NULL;
    int inert = k && k->ops->inert && k->ops->inert(k);
    S.stack[S.depth + 1][i] = want[i] && !inert ? want[i] : S.stack[S.depth][i];
  }
  S.depth++;
  return apply_level(S.depth);
}

int ergo__settings_pop(void) {
  if (S.depth == 0) {
    ergo__error("ergo_setting_pop: no setting is in force; ignored (fix: pop "
                "only what you pushed)");
    return ERGO_ESTATE;
  }
  S.depth--;
  return apply_level(S.depth);
}

void ergo__settings_reset(void) {
  S.depth = 0;
  apply_level(0);
}

int ergo_setting_push(const ergo_setting *s) {
  if (!s) return ERGO_EINVAL;
  if (on_owner("ergo_setting_push")) return ERGO_ESTATE;
  /* ergo_setting's fields, named in the table's field column, by slot. */
  int64_t want[ERGO__NKNOBS] = {[ERGO__KNOB_CORE] = s->core_khz,
                                [ERGO__KNOB_UNCORE] = s->uncore_khz,
                                [ERGO__KNOB_THREADS] = s->threads};
  for (int i = 0; i < ERGO__NKNOBS; i++)
    if (want[i] < 0) {
      ergo__error("ergo_setting_push: %s=%lld is negative; nothing changed (fix: "
                  "0 inherits, else give an allowed value)",
                  ergo__knob_table[i].field, (long long)want[i]);
      return ERGO_EINVAL;
    }
  return ergo__settings_push(want);
}

int ergo_setting_pop(void) {
  if (on_owner("ergo_setting_pop")) return ERGO_ESTATE;
  return ergo__settings_pop();
}

int ergo_setting_current(ergo_setting *out) {
  if (!out) return ERGO_EINVAL;
  int64_t v[ERGO__NKNOBS] = {0, 0, 0};
  for (int i = 0; i < ERGO__NKNOBS; i++) {
    ergo__knob *k = ergo__knob_get(i);
    if (!k) continue;
    if (k->current_valid)
      v[i] = k->current;
    else if (k->ops->get(k, &v[i]) != 0)
      v[i] = 0;
  }
  out->core_khz = (long)v[ERGO__KNOB_CORE];
  out->uncore_khz = (long)v[ERGO__KNOB_UNCORE];
  out->threads = (int)v[ERGO__KNOB_THREADS];
  return 0;
}
