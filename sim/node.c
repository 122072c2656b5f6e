/* node.c - the running sim node: knob values, the virtual clock, energy counters, seeded noise. */
#include "sim/node.h"

#include "ergo.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* One point of a rank's history: at its virtual time t_ns, its cumulative energy (nJ). */
typedef struct share_point {
  uint64_t t_ns, pkg_nj, core_nj, dram_nj;
} share_point;

/* The points a rank keeps for the others to look back at: a reader more than this many pieces
 * behind a rank in virtual time sees the oldest point kept (never happens in the tests' codes,
 * whose ranks meet every step). */
#define SHARE_POINTS 4096

/* One node rank's part of the node's shared segment: its history (points[count % SHARE_POINTS]
 * the latest written at count - 1), whether it has stopped, and its power while idle. */
typedef struct share_slot {
  uint64_t count, done;
  double idle_pkg_w, idle_core_w, idle_dram_w;
  share_point points[SHARE_POINTS];
} share_slot;

/* What a reader last read of another rank: its energy (pkg, core, dram; readings never fall
 * below it) and the count of points at which it was last found stuck. */
struct seen {
  double e[3];
  uint64_t stuck_at;
};

/* The running node, and whether it runs (read without a lock by the clock and the meters);
 * the node's shared counters when the node's ranks share one (slots[nslots], own at `mine`),
 * and what this rank last read of each other (seen[i]). */
static struct {
  ergo__sim_node node;
  int active;
  share_slot *slots;
  int nslots, mine;
  struct seen *seen;
} S;

ergo__sim_node *ergo__sim(void) {
  return __atomic_load_n(&S.active, __ATOMIC_ACQUIRE) ? &S.node : NULL;
}

long ergo__sim_khz(double ghz) { return lround(ghz * 1e6); }

/* splitmix64: small, fast, and the same sequence everywhere for a seed. */
static uint64_t next_u64(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A log-normal factor exp(sigma * N(0,1)) by Box-Muller; 1 when sigma is 0. */
static double lognormal(uint64_t *s, double sigma) {
  if (sigma <= 0) return 1.0;
  double u1 = ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
  double u2 = ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
  double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
  return exp(sigma * z);
}

int ergo__sim_start(const char *node_file, double noise_sigma, unsigned long long seed, char *why,
                    size_t whylen) {
  ergo__sim_stop();
  ergo__sim_params p;
  ergo__sim_params_default(&p);
  if (node_file && *node_file) {
    int rc = ergo__sim_params_load(&p, node_file, why, whylen);
    if (rc) return rc;
  }
  if (!(noise_sigma >= 0 && noise_sigma <= 1)) {
    snprintf(why, whylen, "ERGO_SIM_NOISE=%g is not valid: expected a log-normal sigma from 0 to 1",
             noise_sigma);
    return ERGO_EINVAL;
  }
  p.noise_sigma = noise_sigma;
  p.seed = seed;
  int rc = ergo__sim_params_check(&p, why, whylen);
  if (rc) return rc;
  memset(&S.node, 0, sizeof S.node);
  S.node.p = p;
  S.node.initial = (ergo__sim_config){p.f_max, p.u_max, p.cores};
  S.node.cfg = S.node.initial;
  S.node.rng = seed;
  /* The virtual clock starts at 1 s, not 0: 0 reads as "no time" in places. */
  S.node.now_ns = 1000000000ull;
  pthread_mutex_init(&S.node.lock, NULL);
  __atomic_store_n(&S.active, 1, __ATOMIC_RELEASE);
  return 0;
}

static void share_close(void) {
  if (S.slots) {
    __atomic_store_n(&S.slots[S.mine].done, 1, __ATOMIC_RELEASE);
    munmap(S.slots, (size_t)S.nslots * sizeof *S.slots);
  }
  free(S.seen);
  S.seen = NULL;
  S.slots = NULL;
  S.nslots = 0;
}

void ergo__sim_stop(void) {
  if (!__atomic_load_n(&S.active, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&S.active, 0, __ATOMIC_RELEASE);
  share_close();
  pthread_mutex_destroy(&S.node.lock);
}

/* This rank's clock and counters as the next point of its history (under the node's lock). */
static void publish(void) {
  if (!S.slots) return;
  share_slot *m = &S.slots[S.mine];
  uint64_t c = __atomic_load_n(&m->count, __ATOMIC_RELAXED);
  share_point *q = &m->points[c % SHARE_POINTS];
  __atomic_store_n(&q->t_ns, S.node.now_ns, __ATOMIC_RELAXED);
  __atomic_store_n(&q->pkg_nj, (uint64_t)llround(S.node.e_pkg_j * 1e9), __ATOMIC_RELAXED);
  __atomic_store_n(&q->core_nj, (uint64_t)llround(S.node.e_core_j * 1e9), __ATOMIC_RELAXED);
  __atomic_store_n(&q->dram_nj, (uint64_t)llround(S.node.e_dram_j * 1e9), __ATOMIC_RELAXED);
  __atomic_store_n(&m->count, c + 1, __ATOMIC_RELEASE);
}

void ergo__sim_slice(int node_rank, int node_size) {
  if (!ergo__sim() || node_size <= 1) return;
  pthread_mutex_lock(&S.node.lock);
  ergo__sim_params *p = &S.node.p;
  int k = node_size, cores = p->cores / k + (node_rank < p->cores % k ? 1 : 0);
  p->cores = cores < 1 ? 1 : cores;
  p->static_w /= k;
  p->uncore_min_w /= k;
  p->uncore_dyn_w /= k;
  p->dram_min_w /= k;
  p->bw_max /= k;
  S.node.initial.threads = p->cores;
  S.node.cfg.threads = p->cores;
  pthread_mutex_unlock(&S.node.lock);
}

/* Map the segment of fd, node_size slots; closes fd. */
static int share_map(int fd, int node_rank, int node_size, const char *name, char *why,
                     size_t whylen) {
  size_t len = (size_t)node_size * sizeof(share_slot);
  void *at = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  close(fd);
  if (at == MAP_FAILED) {
    snprintf(why, whylen, "cannot map the node's shared sim counters %s: %s", name, strerror(err));
    return ERGO_EIO;
  }
  struct seen *seen = calloc((size_t)node_size, sizeof *seen);
  if (!seen) {
    munmap(at, len);
    snprintf(why, whylen, "no memory for the node's shared sim counters %s", name);
    return ERGO_ENOMEM;
  }
  pthread_mutex_lock(&S.node.lock);
  share_close();
  S.slots = at;
  S.nslots = node_size;
  S.mine = node_rank;
  S.seen = seen;
  /* This rank's power while idle (ergo__sim_wait's), for a reader that finds it stuck. */
  share_slot *m = &S.slots[node_rank];
  const ergo__sim_params *p = &S.node.p;
  double ur = S.node.cfg.u_ghz / p->u_max;
  m->idle_core_w = p->cores * p->core_idle_w;
  m->idle_pkg_w = p->static_w + m->idle_core_w + p->uncore_min_w + p->uncore_dyn_w * ur * ur;
  m->idle_dram_w = p->dram_min_w;
  publish();
  pthread_mutex_unlock(&S.node.lock);
  return 0;
}

int ergo__sim_share_create(int node_size, char *name, size_t len, char *why, size_t whylen) {
  if (!ergo__sim() || node_size < 1) return ERGO_ESTATE;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(name, len, "/ergo-sim-%ld-%lx", (long)getpid(),
           (unsigned long)(ts.tv_sec * 1000000000L + ts.tv_nsec));
  int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0 || ftruncate(fd, (off_t)((size_t)node_size * sizeof(share_slot))) != 0) {
    snprintf(why, whylen, "cannot create the node's shared sim counters %s: %s", name,
             strerror(errno));
    if (fd >= 0) {
      close(fd);
      shm_unlink(name);
    }
    return ERGO_EIO;
  }
  int rc = share_map(fd, 0, node_size, name, why, whylen);
  if (rc) shm_unlink(name);
  return rc;
}

int ergo__sim_share_open(const char *name, int node_rank, int node_size, char *why, size_t whylen) {
  if (!ergo__sim() || node_rank < 0 || node_rank >= node_size) return ERGO_ESTATE;
  int fd = shm_open(name, O_RDWR, 0600);
  if (fd < 0) {
    snprintf(why, whylen, "cannot open the node's shared sim counters %s: %s", name,
             strerror(errno));
    return ERGO_EIO;
  }
  return share_map(fd, node_rank, node_size, name, why, whylen);
}

void ergo__sim_share_unlink(const char *name) {
  if (name && *name) shm_unlink(name);
}

/* How long a reader waits for a rank behind it in virtual time that makes no progress (it may
 * be waiting in MPI for the reader) before it takes that rank as idle since its last point. */
#define SHARE_STUCK_NS 50000000ll

static int64_t wall_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void point_at(const share_slot *r, uint64_t k, share_point *out) {
  const share_point *q = &r->points[k % SHARE_POINTS];
  out->t_ns = __atomic_load_n(&q->t_ns, __ATOMIC_RELAXED);
  out->pkg_nj = __atomic_load_n(&q->pkg_nj, __ATOMIC_RELAXED);
  out->core_nj = __atomic_load_n(&q->core_nj, __ATOMIC_RELAXED);
  out->dram_nj = __atomic_load_n(&q->dram_nj, __ATOMIC_RELAXED);
}

/* Rank r's cumulative energy at virtual time t (J, out[3]).  Each of its pieces has constant
 * power, so between two points energy is linear in time: exact.  A rank ahead of t is looked up
 * in its history; one behind is waited for (its work takes microseconds of real time) unless it
 * stopped or is stuck, then it counts as idle from its last point (a rank waiting in MPI). */
static void energy_at(const share_slot *r, uint64_t t, double *out, uint64_t *stuck_at) {
  uint64_t c_prev = 0;
  int64_t since = wall_ns();
  share_point a, b;
  for (;;) {
    uint64_t c = __atomic_load_n(&r->count, __ATOMIC_ACQUIRE);
    point_at(r, c - 1, &b);
    if (b.t_ns >= t) {
      uint64_t lo = c > SHARE_POINTS ? c - SHARE_POINTS : 0, hi = c - 1;
      while (lo < hi) { /* the first point at or after t */
        uint64_t mid = lo + (hi - lo) / 2;
        point_at(r, mid, &a);
        if (a.t_ns >= t)
          hi = mid;
        else
          lo = mid + 1;
      }
      point_at(r, lo, &b);
      if (lo == 0 || b.t_ns == t || (c > SHARE_POINTS && lo == c - SHARE_POINTS)) {
        out[0] = (double)b.pkg_nj * 1e-9;
        out[1] = (double)b.core_nj * 1e-9;
        out[2] = (double)b.dram_nj * 1e-9;
        return;
      }
      point_at(r, lo - 1, &a);
      double x = (double)(t - a.t_ns) / (double)(b.t_ns - a.t_ns);
      out[0] = ((double)a.pkg_nj + x * ((double)b.pkg_nj - (double)a.pkg_nj)) * 1e-9;
      out[1] = ((double)a.core_nj + x * ((double)b.core_nj - (double)a.core_nj)) * 1e-9;
      out[2] = ((double)a.dram_nj + x * ((double)b.dram_nj - (double)a.dram_nj)) * 1e-9;
      return;
    }
    int64_t now = wall_ns();
    if (c != c_prev) c_prev = c, since = now;
    /* Found stuck at this very point before: not waited for again until it moves on. */
    if (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) || c == *stuck_at ||
        now - since > SHARE_STUCK_NS) {
      *stuck_at = c;
      double idle = (double)(t - b.t_ns) * 1e-9;
      out[0] = (double)b.pkg_nj * 1e-9 + r->idle_pkg_w * idle;
      out[1] = (double)b.core_nj * 1e-9 + r->idle_core_w * idle;
      out[2] = (double)b.dram_nj * 1e-9 + r->idle_dram_w * idle;
      return;
    }
    struct timespec nap = {0, 20000};
    nanosleep(&nap, NULL);
  }
}

void ergo__sim_node_energy(double *pkg, double *core, double *dram) {
  pthread_mutex_lock(&S.node.lock);
  *pkg = S.node.e_pkg_j;
  *core = S.node.e_core_j;
  *dram = S.node.e_dram_j;
  uint64_t t = S.node.now_ns;
  pthread_mutex_unlock(&S.node.lock);
  /* The others without the node's lock: this rank's own work never waits for a reading. */
  static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&seen_lock);
  for (int i = 0; S.slots && i < S.nslots; i++) {
    if (i == S.mine) continue;
    double e[3];
    energy_at(&S.slots[i], t, e, &S.seen[i].stuck_at);
    for (int d = 0; d < 3; d++) /* never less than read before (a stuck rank's guess) */
      if (e[d] < S.seen[i].e[d]) e[d] = S.seen[i].e[d];
    memcpy(S.seen[i].e, e, sizeof e);
    *pkg += e[0];
    *core += e[1];
    *dram += e[2];
  }
  pthread_mutex_unlock(&seen_lock);
}

int ergo__sim_wait(double seconds) {
  if (!ergo__sim()) return ERGO_ESTATE;
  if (!(seconds >= 0) || !isfinite(seconds)) return ERGO_EINVAL;
  pthread_mutex_lock(&S.node.lock);
  const ergo__sim_params *p = &S.node.p;
  uint64_t dt_ns = (uint64_t)llround(seconds * 1e9);
  double t = (double)dt_ns * 1e-9;
  /* SIM.md's powers with no busy core: every core at core_idle_w, no DRAM traffic. */
  double u = S.node.cfg.u_ghz < p->u_min   ? p->u_min
             : S.node.cfg.u_ghz > p->u_max ? p->u_max
                                           : S.node.cfg.u_ghz;
  double ur = u / p->u_max;
  double p_core = p->cores * p->core_idle_w;
  double p_pkg = p->static_w + p_core + p->uncore_min_w + p->uncore_dyn_w * ur * ur;
  S.node.e_pkg_j += p_pkg * t;
  S.node.e_core_j += p_core * t;
  S.node.e_dram_j += p->dram_min_w * t;
  __atomic_store_n(&S.node.now_ns, S.node.now_ns + dt_ns, __ATOMIC_RELEASE);
  publish();
  pthread_mutex_unlock(&S.node.lock);
  return 0;
}

uint64_t ergo__sim_clock(void *ctx) {
  (void)ctx;
  return __atomic_load_n(&S.node.now_ns, __ATOMIC_ACQUIRE);
}

double ergo__sim_work_done(void) {
  if (!ergo__sim() || !S.node.p.work_counter) return -1;
  pthread_mutex_lock(&S.node.lock);
  double w = S.node.work;
  pthread_mutex_unlock(&S.node.lock);
  return w;
}

int ergo__sim_run(const ergo__sim_work *w, ergo__sim_result *out) {
  if (!ergo__sim()) return ERGO_ESTATE;
  if (!w || !(w->gcycles >= 0) || !(w->gbytes >= 0) || !(w->serial >= 0 && w->serial <= 1) ||
      !isfinite(w->gcycles) || !isfinite(w->gbytes))
    return ERGO_EINVAL;
  pthread_mutex_lock(&S.node.lock);
  ergo__sim_result r;
  ergo__sim_eval(&S.node.p, w, &S.node.cfg, &r);
  /* Noise: one factor on time, one on power, per execution (SIM.md). */
  double ft = lognormal(&S.node.rng, S.node.p.noise_sigma);
  double fp = lognormal(&S.node.rng, S.node.p.noise_sigma);
  /* Time in whole nanoseconds, and energy from that same time, so that the
   * energy of every region is exactly the integral of its power. */
  uint64_t dt_ns = (uint64_t)llround(r.time_s * ft * 1e9);
  double t = (double)dt_ns * 1e-9;
  r.time_s = t;
  r.p_core_w *= fp;
  r.p_uncore_w *= fp;
  r.p_pkg_w *= fp;
  r.p_dram_w *= fp;
  r.e_pkg_j = r.p_pkg_w * t;
  r.e_core_j = r.p_core_w * t;
  r.e_dram_j = r.p_dram_w * t;
  S.node.e_pkg_j += r.e_pkg_j;
  S.node.e_core_j += r.e_core_j;
  S.node.e_dram_j += r.e_dram_j;
  S.node.pieces++;
  S.node.work += w->gcycles + w->gbytes / 8;
  __atomic_store_n(&S.node.now_ns, S.node.now_ns + dt_ns, __ATOMIC_RELEASE);
  publish();
  pthread_mutex_unlock(&S.node.lock);
  if (out) *out = r;
  return 0;
}
