# kokkos.cmake - libergo-kokkos, ergo's Kokkos tool.  ergo-test-kokkos-events calls its kokkosp_*
# entry points as Kokkos would (no Kokkos needed): nesting of regions, kernels, fences and
# sections, steps, ends that do not match (error lines, no crash), joining an ergo the program
# started.  Where Kokkos is found, the example runs with the tool loaded both ways Kokkos loads a
# tool, tuned online on the sim node, and on 2 MPI ranks.
add_executable(ergo-test-kokkos-events ${CMAKE_CURRENT_SOURCE_DIR}/kokkos/events.c)
target_link_libraries(ergo-test-kokkos-events PRIVATE ergo_kokkos ergo)
set(kokkos_env ERGO_REPORT=stdout ERGO_ENERGY=none ERGO_KNOBS=none ERGO_REPORT_STEPS=none
  ERGO_BALANCE=none)
# tree.sh: the report's regions as sorted paths ("tree: A;A/B;..."), whatever their times' order.
set(kokkos_tree_sh sh ${CMAKE_CURRENT_SOURCE_DIR}/kokkos/tree.sh)

add_test(NAME kokkos_events_nest COMMAND ${ERGO_EXPECT}
  "--match=\nSections\n\\* solve +: [^\n]*calls 3\n.*, 3 steps,"
  "--match=tree: Timestep;Timestep/FORCES;Timestep/FORCES/energy;Timestep/FORCES/forces;Timestep/prefix;Timestep/prefix/fence;\n$"
  "--match=ergo: 3 step report\\(s\\)"
  -- ${kokkos_tree_sh} env ${kokkos_env} ERGO_KOKKOS_FENCES=1 ERGO_KOKKOS_STEP=Timestep
  ERGO_REPORT_STEPS=${CMAKE_CURRENT_BINARY_DIR}/kokkos_nest_steps.txt
  $<TARGET_FILE:ergo-test-kokkos-events> nest)
set_tests_properties(kokkos_events_nest PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: (error|warning)")
# Kernels off, regions at level 1 (popped at the level pushed: no error), and a bad value: one warning naming it, the default kept.
add_test(NAME kokkos_events_options COMMAND ${ERGO_EXPECT}
  "--match=ergo: warning: kokkos: ERGO_KOKKOS_FENCES='yes' is not an integer from 0 to 1; 0 is used"
  "--match=tree: Timestep;Timestep/FORCES;\n$"
  -- ${kokkos_tree_sh} env ${kokkos_env} ERGO_KOKKOS_KERNELS=0 ERGO_KOKKOS_FENCES=yes ERGO_KOKKOS_LEVEL=1
  $<TARGET_FILE:ergo-test-kokkos-events> nest)
set_tests_properties(kokkos_events_options PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: error")

add_test(NAME kokkos_events_mismatch COMMAND ${ERGO_EXPECT}
  "--match=ergo: error: kokkos: kokkosp_end_parallel_for of 'k_for': the region 'InKernel' opened inside it was not closed; closing it now"
  "--match=ergo: error: kokkos: kokkosp_end_parallel_for\\([0-9]+\\): no kernel with this id is open on this thread; ignored"
  "--match=ergo: error: kokkos: kokkosp_end_parallel_for\\(987654321\\): no kernel"
  "--match=ergo: error: kokkos: kokkosp_end_parallel_reduce of 'k_reduce': the kernel 'k_scan' opened inside it was not closed"
  "--match=ergo: error: kokkos: kokkosp_end_parallel_scan\\([0-9]+\\): no kernel with this id"
  "--match=ergo: error: kokkos: kokkosp_pop_profile_region: no Kokkos region is open on this thread; pop ignored"
  "--match=ergo: error: kokkos: kokkosp_finalize_library: the region 'Left' opened inside it was not closed"
  "--match=tree: Left;Outer;Outer/k_for;Outer/k_for/InKernel;Outer/k_reduce;Outer/k_reduce/k_scan;\n$"
  -- ${kokkos_tree_sh} env ${kokkos_env} $<TARGET_FILE:ergo-test-kokkos-events> mismatch)
# ergo's own error lines: none (every region the tool opened, it closed by name).
set_tests_properties(kokkos_events_mismatch PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: error: [^k]")

add_test(NAME kokkos_events_join COMMAND ${ERGO_EXPECT}
  "--match=after kokkosp_finalize_library: ergo_initialized 1\n"
  "--match=tree: App;App/KokkosPart;App/KokkosPart/k;\n$"
  -- ${kokkos_tree_sh} env ${kokkos_env} $<TARGET_FILE:ergo-test-kokkos-events> join)
set_tests_properties(kokkos_events_join PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: (error|warning)")

# ---- the Kokkos example, where Kokkos was found ----
set(kokkos_tests kokkos_example_report kokkos_example_tools_arg kokkos_example_online_sim
  kokkos_example_help kokkos_example_mpi kokkos_example_mpi_online)
if(NOT TARGET ergo-example-kokkos)
  foreach(t ${kokkos_tests})
    add_test(NAME ${t} COMMAND sh -c
      "echo 'SKIPPED: no Kokkos here (apt-get install libtrilinos-kokkos-dev g++)'; exit 77")
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
  return()
endif()
set(kokkos_lib $<TARGET_FILE:ergo_kokkos>)
set(kokkos_ex $<TARGET_FILE:ergo-example-kokkos>)
# Kokkos' own kernels (the views' initialisation) are in the tree beside the example's.
set(example_tree "--match=tree: Kokkos::View::initialization \\[f\\];Kokkos::View::initialization \\[v\\];Kokkos::View::initialization \\[x\\];Timestep;Timestep/DRIFT;Timestep/DRIFT/drift;Timestep/DRIFT/prefix_positions;Timestep/FORCES;Timestep/FORCES/compute_forces;Timestep/FORCES/kinetic_energy;init;\n$")
set(example_sections "\nSections\n\\* solve +: [^\n]*calls 6\n\\* output +: [^\n]*calls 3\n")
add_test(NAME kokkos_example_report COMMAND ${ERGO_EXPECT}
  "${example_tree}" "--match=${example_sections}"
  "--match=kokkos example: 6 steps"
  -- ${kokkos_tree_sh} env ${kokkos_env} KOKKOS_PROFILE_LIBRARY=${kokkos_lib} ${kokkos_ex})
add_test(NAME kokkos_example_tools_arg COMMAND ${ERGO_EXPECT}
  "${example_tree}" "--match=${example_sections}"
  -- ${kokkos_tree_sh} env ${kokkos_env} ${kokkos_ex} --kokkos-tools-library=${kokkos_lib})
# --kokkos-tools-help: the tool's own variables.
add_test(NAME kokkos_example_help COMMAND ${ERGO_EXPECT}
  "--match=libergo-kokkos \\(ergo [0-9.]+\\) for [^\n]*\n  ERGO_KOKKOS_LEVEL=N [^\n]*\n  ERGO_KOKKOS_KERNELS=0 [^\n]*\n  ERGO_KOKKOS_FENCES=1 [^\n]*\n  ERGO_KOKKOS_STEP=NAME "
  -- env ${kokkos_env} ${kokkos_ex} --kokkos-tools-library=${kokkos_lib} --kokkos-tools-help)
# Run the command ($2...), then print the regions of the model file $1: "model regions: ...".
set(kokkos_model_sh [=[
m=$1; shift; rm -f "$m"
"$@" || exit 1
/usr/bin/env python3 -c 'import json,sys; print("model regions:", ", ".join(json.dumps(r) for r in sorted(json.load(open(sys.argv[1]))["regions"])))' "$m"
]=])
# Tuned online on the sim node, one step per Timestep: the model's regions are the Kokkos regions
# (the kernels, level 3, inherit their region's setting), and the sections have energy.
add_test(NAME kokkos_example_online_sim COMMAND ${ERGO_EXPECT}
  "--match=model regions: \"Global/Timestep/DRIFT\", \"Global/Timestep/FORCES\"\n$"
  "--match=, 20 steps, platform sim, policy online"
  "--match=\nSections\n\\* solve +: [0-9.]+ sec, [ 0-9.]+%, calls 20 \\| [1-9][0-9.]+ J, [0-9.]+ W"
  -- sh -c "${kokkos_model_sh}" kokkos ${CMAKE_CURRENT_BINARY_DIR}/kokkos_online_model.json
  env ERGO_REPORT=stdout ERGO_REPORT_STEPS=none ERGO_BALANCE=none ERGO_POLICY=online ERGO_PLATFORM=sim
  ERGO_MODEL=${CMAKE_CURRENT_BINARY_DIR}/kokkos_online_model.json ERGO_KOKKOS_STEP=Timestep
  KOKKOS_PROFILE_LIBRARY=${kokkos_lib} ${kokkos_ex} --steps 20)
foreach(t kokkos_example_report kokkos_example_tools_arg kokkos_example_online_sim
    kokkos_example_help)
  set_tests_properties(${t} PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: error"
    ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
endforeach()
if(ERGO_WITH_MPI)
  set(kokkos_mpi_ranks " \\| ranks min [0-9.]+ max [0-9.]+ std [0-9.]+ sec, imbalance +[0-9.]+%")
  add_test(NAME kokkos_example_mpi COMMAND ${ERGO_EXPECT}
    "--match=MPI-Tasks: 2, nodes: 1"
    "--match=\n\\* Timestep +: [^\n]*${kokkos_mpi_ranks}\n"
    "--match=\n- - \\* compute_forces +: [^\n]*${kokkos_mpi_ranks}\n"
    "--match=\nSections\n\\* solve +: [^\n]*calls 12\n\\* output +: [^\n]*calls 6\n"
    "${example_tree}"
    -- ${kokkos_tree_sh} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS} env ${kokkos_env} KOKKOS_PROFILE_LIBRARY=${kokkos_lib} ${kokkos_ex})
  set_tests_properties(kokkos_example_mpi PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: (error|warning)"
    ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
  # Tuned online on the sim node shared by 2 ranks (the node's ranks tune as one): rank 0 writes
  # the model, whose regions are Kokkos regions only.
  add_test(NAME kokkos_example_mpi_online COMMAND ${ERGO_EXPECT}
    "--match=MPI-Tasks: 2, nodes: 1"
    "--match=, 20 steps, platform sim, policy online"
    "--match=model regions: (\"Global/Timestep\", )?\"Global/Timestep/DRIFT\", \"Global/Timestep/FORCES\"\n$"
    -- sh -c "${kokkos_model_sh}" kokkos ${CMAKE_CURRENT_BINARY_DIR}/kokkos_mpi_model.json
    ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS} env ERGO_REPORT=stdout ERGO_REPORT_STEPS=none ERGO_BALANCE=none
    ERGO_POLICY=online ERGO_PLATFORM=sim ERGO_MODEL=${CMAKE_CURRENT_BINARY_DIR}/kokkos_mpi_model.json
    ERGO_KOKKOS_STEP=Timestep KOKKOS_PROFILE_LIBRARY=${kokkos_lib} ${kokkos_ex} --steps 20)
  set_tests_properties(kokkos_example_mpi_online PROPERTIES FAIL_REGULAR_EXPRESSION "ergo: error"
    ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
else()
  foreach(t kokkos_example_mpi kokkos_example_mpi_online)
    add_test(NAME ${t} COMMAND sh -c "echo 'SKIPPED: ergo built without MPI'; exit 77")
    set_tests_properties(${t} PROPERTIES SKIP_RETURN_CODE 77)
  endforeach()
endif()
