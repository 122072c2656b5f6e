/* node.c - the running sim node: knob values, the virtual clock, energy counters, seeded noise. */
#include "sim/node.h"

#include "ergo.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The running node, and whether it runs (read without a lock by the clock and the meters). */
static struct {
  ergo__sim_node node;
  int active;
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

void ergo__sim_stop(void) {
  if (!__atomic_load_n(&S.active, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&S.active, 0, __ATOMIC_RELEASE);
  pthread_mutex_destroy(&S.node.lock);
}

uint64_t ergo__sim_clock(void *ctx) {
  (void)ctx;
  return __atomic_load_n(&S.node.now_ns, __ATOMIC_ACQUIRE);
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
  __atomic_store_n(&S.node.now_ns, S.node.now_ns + dt_ns, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&S.node.lock);
  if (out) *out = r;
  return 0;
}
