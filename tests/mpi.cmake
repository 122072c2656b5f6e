# mpi.cmake - ctests of ergo over MPI, each run under mpiexec with 4 ranks on this one machine:
# one merged report, a region that only rank 3 runs, pretend nodes (ERGO_NODE_SPLIT) with their
# energy readers and node-consistent tuning.
if(ERGO_WITH_MPI)
  add_executable(ergo-test-ranks mpi/ranks_app.c)
  target_link_libraries(ergo-test-ranks PRIVATE ergo MPI::MPI_C)
  set(mpi_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi_runs)
  file(MAKE_DIRECTORY ${mpi_dir})
  # Root in CI and containers; 4 ranks on 2 cores.
  set(mpi_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS})
  set(mpi_env "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_KNOBS=none")
endif()
