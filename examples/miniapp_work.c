/* miniapp_work.c - the mini-app's timestep: OpenGadget3's regions (SPACE-Timers paper), each
 * with work of its own character, and the profiles that bend that work. */
#include "miniapp_work.h"

#include <string.h>

typedef struct {
  double gcycles, gbytes, serial;
} work_class;

static const work_class classes[MINI_NCLASSES] = {
    [MINI_COMPUTE] = {40, 1, 0.01}, [MINI_MEMORY] = {2, 60, 0.01}, [MINI_SERIAL] = {20, 2, 0.5},
    [MINI_MIXED] = {15, 25, 0.05},  [MINI_COMM] = {3, 3, 0.8},     [MINI_BALANCED] = {10, 40, 0.02},
    [MINI_LIGHT] = {8, 10, 0.1},    [MINI_HEAVY] = {30, 50, 0.03},
};
const char *const mini_class_names[MINI_NCLASSES] = {
    "compute", "memory", "serial", "mixed", "comm-like", "balanced", "light-memory", "heavy-mix"};

/* Scales follow the shares of the paper's report (FIND_HSML ~35 %, HYDRO_ACCEL ~23 %,
 * COMPUTE_UNIFIED_GRADIENTS ~20 %, check_stop_condition ~12 %, ...); a step takes about 6
 * simulated seconds at full speed.  Regions with children list their own (exclusive) work;
 * RESTART_WRITE (level 3) is below the energy level, so its work counts as IO's. */
enum {
  SETUP,
  PRIMARY,
  SECONDARY,
  EXCHANGE,
  SEND,
  FINAL,
  EXTRA,
  HYDRO_C,
  HYDRO_X,
  CUG_P,
  CUG_S,
  DRIFT,
  PEANO,
  DOMX,
  TREE,
  IO,
  CHECK,
  STEP
};
const mini_region mini_regions[] = {
    [SETUP] = {"Global/Timestep/FIND_HSML/Setup_Left\\/Right", MINI_LIGHT, 0.12},
    [PRIMARY] = {"Global/Timestep/FIND_HSML/Primary", MINI_COMPUTE, 0.48},
    [SECONDARY] = {"Global/Timestep/FIND_HSML/Secondary", MINI_HEAVY, 0.64},
    [EXCHANGE] = {"Global/Timestep/FIND_HSML/Exchange", MINI_COMM, 0.3},
    [SEND] = {"Global/Timestep/FIND_HSML/Send_Results", MINI_COMM, 0.08},
    [FINAL] = {"Global/Timestep/FIND_HSML/Final", MINI_LIGHT, 0.12},
    [EXTRA] = {"Global/Timestep/FIND_HSML/Extra", MINI_SERIAL, 0.01},
    [HYDRO_C] = {"Global/Timestep/HYDRO_ACCEL/HYDRO_COMPUTE", MINI_COMPUTE, 0.9},
    [HYDRO_X] = {"Global/Timestep/HYDRO_ACCEL/HYDRO_COMM", MINI_COMM, 0.16},
    [CUG_P] = {"Global/Timestep/COMPUTE_UNIFIED_GRADIENTS/Primary", MINI_BALANCED, 1.6},
    [CUG_S] = {"Global/Timestep/COMPUTE_UNIFIED_GRADIENTS/Secondary", MINI_MIXED, 0.44},
    [DRIFT] = {"Global/Timestep/DRIFT", MINI_MEMORY, 0.27},
    [PEANO] = {"Global/Timestep/DOMAIN/PEANO", MINI_SERIAL, 0.02},
    [DOMX] = {"Global/Timestep/DOMAIN/DOM_EXCHANGE", MINI_COMM, 0.03},
    [TREE] = {"Global/Timestep/TREEUPDATE", MINI_MIXED, 0.04},
    [IO] = {"Global/Timestep/check_stop_condition/IO", MINI_SERIAL, 0.02},
    [CHECK] = {"Global/Timestep/check_stop_condition", MINI_LIGHT, 0.8},
    [STEP] = {"Global/Timestep", MINI_MEMORY, 0.3},
};
const int mini_nregions = sizeof mini_regions / sizeof *mini_regions;

const mini_profile mini_profiles[] = {
    {"default", "the regions as they are", 1, 1, 0, 0},
    {"compute-heavy", "three times the compute everywhere", 3, 1, 0, 0},
    {"memory-heavy", "three times the memory traffic everywhere", 1, 3, 0, 0},
    {"serial-heavy", "every serial fraction 0.3 higher (at most 0.95)", 1, 1, 0.3, 0},
    {"mixed", "compute and memory both doubled", 2, 2, 0, 0},
    {"default-noisy", "default, with 5 % log-normal noise on time and power", 1, 1, 0, 0.05},
    {"compute-heavy-noisy", "compute-heavy with 5 % noise", 3, 1, 0, 0.05},
    {"memory-heavy-noisy", "memory-heavy with 5 % noise", 1, 3, 0, 0.05},
    {"serial-heavy-noisy", "serial-heavy with 5 % noise", 1, 1, 0.3, 0.05},
    {"mixed-noisy", "mixed with 5 % noise", 2, 2, 0, 0.05},
};
const int mini_nprofiles = sizeof mini_profiles / sizeof *mini_profiles;

static const mini_profile *prof = &mini_profiles[0];

const mini_profile *mini_profile_named(const char *name) {
  for (int i = 0; i < mini_nprofiles; i++)
    if (!strcmp(name, mini_profiles[i].name)) return &mini_profiles[i];
  return NULL;
}

void mini_set_profile(const mini_profile *p) { prof = p ? p : &mini_profiles[0]; }

ergo_sim_work_desc mini_desc(int i) {
  const work_class *c = &classes[mini_regions[i].cls];
  double scale = mini_regions[i].scale, s = c->serial + prof->s_add;
  return (ergo_sim_work_desc){c->gcycles * prof->c_mul * scale, c->gbytes * prof->m_mul * scale,
                              s > 0.95 ? 0.95 : s};
}

static void (*do_work)(const ergo_sim_work_desc *);
static void (*do_comm)(int i);

void mini_set_comm(void (*comm)(int i)) { do_comm = comm; }

static void work(int i) {
  ergo_sim_work_desc d = mini_desc(i);
  do_work(&d);
  if (do_comm && mini_regions[i].cls == MINI_COMM) do_comm(i);
}

static void region(int level, const char *name, int i) {
  ERGO_PUSH(level, name);
  work(i);
  ERGO_POP(level, name);
}

void mini_step(void (*fn)(const ergo_sim_work_desc *)) {
  do_work = fn;
  ERGO_PUSH(0, "Timestep");
  ERGO_PUSH(1, "FIND_HSML");
  region(2, "Setup_Left/Right", SETUP);
  ERGO_PUSH(2, "Primary");
  work(PRIMARY);
  ERGO_POPPUSH(2, "Primary", "Secondary"); /* one clock reading closes one, opens the next */
  work(SECONDARY);
  ERGO_POP(2, "Secondary");
  region(2, "Exchange", EXCHANGE);
  region(2, "Send_Results", SEND);
  region(2, "Final", FINAL);
  region(2, "Extra", EXTRA);
  ERGO_POPPUSH(1, "FIND_HSML", "HYDRO_ACCEL");
  region(2, "HYDRO_COMPUTE", HYDRO_C);
  region(2, "HYDRO_COMM", HYDRO_X);
  ERGO_POPPUSH(1, "HYDRO_ACCEL", "COMPUTE_UNIFIED_GRADIENTS");
  region(2, "Primary", CUG_P);
  region(2, "Secondary", CUG_S);
  ERGO_POP(1, "COMPUTE_UNIFIED_GRADIENTS");
  region(1, "DRIFT", DRIFT);
  ERGO_PUSH(1, "DOMAIN");
  region(2, "PEANO", PEANO);
  region(2, "DOM_EXCHANGE", DOMX);
  ERGO_POP(1, "DOMAIN");
  region(1, "TREEUPDATE", TREE);
  ERGO_PUSH(1, "check_stop_condition");
  work(CHECK); /* the condition itself: Unaccounted below, as in the paper */
  ERGO_PUSH(2, "IO");
  region(3, "RESTART_WRITE", IO);
  ERGO_POP(2, "IO");
  ERGO_POP(1, "check_stop_condition");
  work(STEP); /* between regions: the step's own Unaccounted */
  ERGO_POP(0, "Timestep");
}
