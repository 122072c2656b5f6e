/* ergo.hpp - C++ scoped forms of ergo's C API (ergo.h): a region that pops when its scope ends
 * (by return, break or exception), a setting that is popped the same way, and a session that
 * starts and finishes ergo.  Header only; C++11 or later; link libergo as for C.
 *
 *   #include <ergo.hpp>
 *   int main() {
 *     ergo::session run;                       // ergo_init(NULL) ... ergo_finalize()
 *     for (int step = 1; step <= 100; step++) {
 *       ergo::region r(1, "Timestep");         // ERGO_PUSH(1, "Timestep") ... ERGO_POP
 *       { ergo::region f(2, "FIND_HSML"); find_hsml(); }
 *       ergo_step(step);                       // inside Timestep, as in C
 *     }
 *   }
 *
 * A region keeps the file and line of the code that made it (for ergo's error lines), and its
 * own copy of the name, so a name built at run time may go out of scope first.  Levels above
 * ERGO_LEVEL, and every call under ERGO_DISABLE, compile to nothing that reaches the library. */
#ifndef ERGO_HPP
#define ERGO_HPP

#include "ergo.h"

#include <string>

#if defined(__GNUC__) || defined(__clang__)
#define ERGO__HERE_FILE __builtin_FILE()
#define ERGO__HERE_LINE __builtin_LINE()
#else
#define ERGO__HERE_FILE "?"
#define ERGO__HERE_LINE 0
#endif

namespace ergo {

/* ergo_init at construction, ergo_finalize at destruction (when init succeeded). */
class session {
public:
  explicit session(const ergo_config *cfg = nullptr) noexcept
#ifdef ERGO_DISABLE
      : rc_(0) {
    (void)cfg;
  }
#else
      : rc_(ergo_init(cfg)) {
  }
#endif
  ~session() {
#ifndef ERGO_DISABLE
    if (rc_ == 0) ergo_finalize();
#endif
  }
  /* 0, or what ergo_init returned (ERGO_E*). */
  int status() const noexcept { return rc_; }
  session(const session &) = delete;
  session &operator=(const session &) = delete;

private:
  int rc_;
};

/* ERGO_PUSH(level, name) now, ERGO_POP(level, name) when the scope ends. */
class region {
public:
  region(int level, const char *name, const char *file = ERGO__HERE_FILE,
         int line = ERGO__HERE_LINE)
      : level_(level), name_(name ? name : ""), file_(file), line_(line) {
    enter();
  }
  region(int level, const std::string &name, const char *file = ERGO__HERE_FILE,
         int line = ERGO__HERE_LINE)
      : level_(level), name_(name), file_(file), line_(line) {
    enter();
  }
  ~region() {
#ifndef ERGO_DISABLE
    if (level_ <= ERGO_LEVEL) ergo_pop_at(level_, name_.c_str(), file_, line_);
#endif
  }
  region(const region &) = delete;
  region &operator=(const region &) = delete;

private:
  void enter() noexcept {
#ifndef ERGO_DISABLE
    if (level_ <= ERGO_LEVEL) ergo_push_at(level_, name_.c_str(), file_, line_);
#endif
  }
  int level_;
  std::string name_;
  const char *file_;
  int line_;
};

/* ergo_setting_push(s) now, ergo_setting_pop() when the scope ends (if the push took effect). */
class setting {
public:
  explicit setting(const ergo_setting &s) noexcept
#ifdef ERGO_DISABLE
      : rc_(-1) {
    (void)s;
  }
#else
      : rc_(ergo_setting_push(&s)) {
  }
#endif
  ~setting() {
#ifndef ERGO_DISABLE
    if (rc_ == 0) ergo_setting_pop();
#endif
  }
  /* 0 when the setting is in force, else what ergo_setting_push returned (ERGO_E*). */
  int status() const noexcept { return rc_; }
  setting(const setting &) = delete;
  setting &operator=(const setting &) = delete;

private:
  int rc_;
};

/* ergo_region_work(units): inside a region, how much work this execution did (see ergo.h). */
inline void work(double units) noexcept {
#ifndef ERGO_DISABLE
  ergo_region_work(units);
#else
  (void)units;
#endif
}

} // namespace ergo

#endif
