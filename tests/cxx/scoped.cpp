// scoped.cpp - ergo.hpp's scoped regions, setting and session in a program whose tree is the
// same as tests/cxx/scoped_c.c's: three steps of Timestep { FIND_HSML { Primary, Secondary },
// DRIFT }, where Secondary throws on step 2 and Timestep catches it: the regions the exception
// leaves are popped by their destructors, so no error line and the same tree.
#include <ergo.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

static volatile double sink;
static void work(int n) {
  for (int i = 0; i < n * 1000; i++) sink = sink + i * 0.5;
}

static void secondary(int step) {
  ergo::region r(3, std::string("Second") + "ary"); // a name built at run time
  work(2);
  if (step == 2) throw std::runtime_error("step 2 fails here");
}

int main() {
  ergo::session run;
  if (run.status() != 0) return 1;
  for (int step = 1; step <= 3; step++) {
    ergo::region t(1, "Timestep");
    try {
      ergo::region f(2, "FIND_HSML");
      {
        ergo::region p(3, "Primary");
        work(3);
        ergo::work(3); // this execution's work, so tuning compares per unit of it
      }
      secondary(step);
    } catch (const std::exception &e) {
      std::printf("caught: %s\n", e.what());
    }
    {
      ergo::region d(2, "DRIFT");
      ergo_setting none = {0, 0, 0};
      ergo::setting s(none); // sets nothing: only the scope's push and pop
      work(1);
    }
    ergo_step(step);
  }
  return ergo_error_count() == 0 ? 0 : 2;
}
