// timestep.cpp - a small Kokkos code annotated the Kokkos way (no ergo call): a timestep loop of
// profile regions Timestep { FORCES, DRIFT }, named parallel_for/reduce/scan kernels in them,
// and two ProfilingSections ("solve" overlaps FORCES and DRIFT, "output" every other step).
// Run with ergo's Kokkos tool, it gets ergo's report, tuning and MPI merge:
//   KOKKOS_PROFILE_LIBRARY=$PWD/build/kokkos/libergo-kokkos.so build/examples/ergo-example-kokkos
//   build/examples/ergo-example-kokkos --kokkos-tools-library=$PWD/build/kokkos/libergo-kokkos.so
// Options: --steps N (default 6), --n N (elements, default 200000).
//
// On ergo's sim node (ERGO_PLATFORM=sim) time is virtual: each kernel then also tells the sim
// node its work through ergo_sim_work, found with dlsym in the ergo the tool loaded (this program
// links no ergo), as a real kernel takes real time.  Built with ERGO_EXAMPLE_MPI it is an MPI
// program (MPI_Init before Kokkos::initialize, so ergo merges the ranks' reports).
#include <Kokkos_Core.hpp>
#include <Kokkos_Profiling_ProfileSection.hpp>

#include <ergo_sim.h> // the type of ergo_sim_work's argument only

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef ERGO_EXAMPLE_MPI
#include <mpi.h>
#endif

namespace {

typedef int (*sim_active_fn)();
typedef int (*sim_work_fn)(const ergo_sim_work_desc *);
sim_work_fn sim_work = nullptr;

// Called once inside each kernel (its first element): the sim node's time for the kernel's work.
KOKKOS_INLINE_FUNCTION void model(double gcycles, double gbytes) {
  if (sim_work) {
    ergo_sim_work_desc w = {gcycles, gbytes, 0.02};
    sim_work(&w);
  }
}

void find_sim() {
  sim_active_fn active = reinterpret_cast<sim_active_fn>(dlsym(RTLD_DEFAULT, "ergo_sim_active"));
  if (active && active())
    sim_work = reinterpret_cast<sim_work_fn>(dlsym(RTLD_DEFAULT, "ergo_sim_work"));
}

} // namespace

int main(int argc, char **argv) {
  int rank = 0;
#ifdef ERGO_EXAMPLE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#endif
  int steps = 6, n = 200000;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc)
      steps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--n") && i + 1 < argc)
      n = std::atoi(argv[++i]);
  }
  if (steps < 1 || n < 1) {
    std::fprintf(stderr, "usage: %s [--steps N] [--n N] [Kokkos options]\n", argv[0]);
    return 2;
  }
  Kokkos::initialize(argc, argv);
  double total = 0;
  {
    find_sim();
    Kokkos::View<double *> x("x", n), v("v", n), f("f", n);
    Kokkos::Profiling::ProfilingSection solve("solve"), output("output");
    Kokkos::parallel_for(
        "init", n, KOKKOS_LAMBDA(int i) {
          x(i) = 0.001 * i;
          v(i) = 0;
        });
    for (int step = 1; step <= steps; step++) {
      Kokkos::Profiling::pushRegion("Timestep");

      Kokkos::Profiling::pushRegion("FORCES");
      Kokkos::parallel_for(
          "compute_forces", n, KOKKOS_LAMBDA(int i) {
            if (i == 0) model(15, 2); // compute-bound
            f(i) = -x(i) + 0.1 * (i > 0 ? x(i - 1) : 0.0);
          });
      solve.start();
      double energy = 0;
      Kokkos::parallel_reduce(
          "kinetic_energy", n,
          KOKKOS_LAMBDA(int i, double &e) {
            if (i == 0) model(1, 10); // memory-bound
            e += 0.5 * v(i) * v(i);
          },
          energy);
      Kokkos::Profiling::popRegion();

      Kokkos::Profiling::pushRegion("DRIFT");
      Kokkos::parallel_for(
          "drift", n, KOKKOS_LAMBDA(int i) {
            if (i == 0) model(2, 20); // memory-bound
            v(i) += 0.01 * f(i);
            x(i) += 0.01 * v(i);
          });
      Kokkos::parallel_scan(
          "prefix_positions", n, KOKKOS_LAMBDA(int i, double &acc, bool last) {
            if (i == 0 && last) model(1, 5);
            acc += x(i);
            if (last) f(i) = acc;
          });
      Kokkos::Profiling::popRegion();
      solve.stop();

      if (step % 2 == 0) {
        output.start();
        total += energy;
        output.stop();
      }
      Kokkos::Profiling::popRegion(); // Timestep
    }
  }
  Kokkos::finalize();
#ifdef ERGO_EXAMPLE_MPI
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#endif
  if (rank == 0)
    std::printf("kokkos example: %d steps of %d elements, energy sum %.6g\n", steps, n, total);
#ifdef ERGO_EXAMPLE_MPI
  MPI_Finalize();
#endif
  return 0;
}
