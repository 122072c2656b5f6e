# examples_mpi.cmake - ctests of the two real examples as MPI programs (a build with MPI): run on 4
# ranks, rank 0 alone prints, heat's result is the serial one bit for bit, and ergo writes one
# report merged over the ranks (a header "MPI-Tasks: 4, nodes: ..." and per-region rank columns).
# 4 ranks of one OpenMP thread each, oversubscribed on small CI machines; each test a few seconds.
if(ERGO_WITH_MPI AND TARGET ergo-example-heat AND TARGET ergo-example-miniapp)
  # Open MPI refuses root (CI runs as root) and more ranks than cores unless told.
  set(mpi_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS})
  set(mpi_dir ${CMAKE_CURRENT_BINARY_DIR}/examples_mpi)
  file(MAKE_DIRECTORY ${mpi_dir})
  set(mpi_env "ERGO_STATE_DIR=${mpi_dir}/state;ERGO_REPORT=stdout;OMP_NUM_THREADS=1" ${ERGO_MPI_TEST_ENV})
  set(mpi_heat $<TARGET_FILE:ergo-example-heat>)
  set(mpi_mini $<TARGET_FILE:ergo-example-miniapp>)
  set(mpi_heat_args --size 128 --steps 3)
  # heat.cmake's serial result for these arguments: any rank count must print it unchanged.
  set(mpi_heat_result "heat: result heat=619\\.63518365959897 residual=0\\.98243057663780564 product=-5\\.6504050997682738\n")

  # Run the command ("$@"), show its output, fail on a non-zero exit; then count(RE) is the
  # number of output lines matching RE, once(RE WHAT) fails unless exactly one does, and
  # regions(RE...) fails unless every RE matches a line, then says how many did.
  set(mpi_sh [=[
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
count() { printf '%s\n' "$out" | grep -Ec -- "$1"; }
once() { n=$(count "$1"); [ "$n" -eq 1 ] || { echo "FAIL: $n lines of $2 (expected 1)"; exit 1; }; }
regions() {
  n=0
  for re in "$@"; do
    printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: no report line matches $re"; exit 1; }
    n=$((n + 1))
  done
  echo "merged report: all $n region lines found"
}
]=])
  # A region line of the merged report: its own columns, then the spread over the ranks.
  set(mpi_ranks " \\| ranks min [0-9.]+ max [0-9.]+ std [0-9.]+ sec, imbalance +[0-9.]+%")

  # The program's own lines: once each, from rank 0 alone; the result is the serial one.
  add_test(NAME example_heat_mpi COMMAND ${ERGO_EXPECT}
    "--match=${mpi_heat_result}.*heat mpi: one heading, one result\n"
    -- sh -c "${mpi_sh}
once '^heat: 128x128 grid, ' 'the heading'
once '^heat: 4 MPI ranks, 32 to 32 grid rows each' 'the ranks line'
once '^heat: result ' 'the result'
echo 'heat mpi: one heading, one result'
" heat-mpi ${mpi_run} ${mpi_heat} ${MPIEXEC_POSTFLAGS} ${mpi_heat_args})
  set_tests_properties(example_heat_mpi PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # Uneven slabs (100 rows over 3 ranks) and 2 threads per rank: every step's sums (--output)
  # and the result equal a run of one process, computed here rather than written down.
  add_test(NAME example_heat_mpi_uneven COMMAND ${ERGO_EXPECT}
    "--match=heat mpi uneven: 4 steps and the result as one process has them\n"
    -- sh -c [=[
heat=$1; shift
args="--size 100 --steps 4 --sweeps 3"
ERGO_REPORT=none OMP_NUM_THREADS=1 "$heat" $args --output serial.txt > serial.out 2>&1 || { echo "FAIL: the serial run"; cat serial.out; exit 1; }
ERGO_REPORT=none OMP_NUM_THREADS=2 "$@" $args --output mpi.txt > mpi.out 2>&1 || { echo "FAIL: the MPI run"; cat mpi.out; exit 1; }
cat mpi.out
grep -q '^heat: 3 MPI ranks, 33 to 34 grid rows each' mpi.out || { echo "FAIL: not 3 ranks of 33 to 34 rows"; exit 1; }
cmp serial.txt mpi.txt || { echo "FAIL: the per-step sums differ from one process's"; exit 1; }
[ "$(grep '^heat: result' serial.out)" = "$(grep '^heat: result' mpi.out)" ] || { echo "FAIL: the result differs from one process's"; exit 1; }
echo "heat mpi uneven: $(wc -l < mpi.txt) steps and the result as one process has them"
]=] heat-mpi-uneven ${mpi_heat} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3
    --allow-run-as-root --oversubscribe ${MPIEXEC_PREFLAGS} ${mpi_heat} ${MPIEXEC_POSTFLAGS})
  set_tests_properties(example_heat_mpi_uneven PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # ergo's one report over the 4 ranks (core's merge): one Global line, the MPI header, and the
  # spread over the ranks on the regions, the halo exchange included.
  add_test(NAME example_heat_mpi_report COMMAND ${ERGO_EXPECT}
    "--match=${mpi_heat_result}.*merged report: all 5 region lines found\n"
    -- sh -c "${mpi_sh}
once '^Total wall clock time for Global = ' 'Total wall clock time for Global'
once '^MPI-Tasks: 4, nodes: [0-9]+; ' 'the MPI-Tasks header'
regions '^\\* Timestep +: .*${mpi_ranks}' '^- - \\* JACOBI_SWEEP +: .*${mpi_ranks}' \
  '^- - \\* HALO +: .*${mpi_ranks}' '^- - \\* DGEMM +: .*${mpi_ranks}' \
  '^- - \\* RESIDUAL +: .*${mpi_ranks}'
" heat-mpi-report ${mpi_run} ${mpi_heat} ${MPIEXEC_POSTFLAGS} ${mpi_heat_args})
  set_tests_properties(example_heat_mpi_report PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # A usage error is said once (by rank 0), not once per rank.
  add_test(NAME example_heat_mpi_bad_args COMMAND ${ERGO_EXPECT}
    "--match=heat mpi: the error said once\n"
    -- sh -c [=[
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: exit code 0"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c "^heat: --size 'abc' is not accepted: expected an integer from 16 to 8192$")
[ "$n" -eq 1 ] || { echo "FAIL: the error said $n times (expected once)"; exit 1; }
echo "heat mpi: the error said once"
]=] heat-mpi-bad ${mpi_run} ${mpi_heat} ${MPIEXEC_POSTFLAGS} --size abc)
  set_tests_properties(example_heat_mpi_bad_args PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # The mini-app on the sim node: its lines once, from rank 0.
  add_test(NAME example_miniapp_mpi COMMAND ${ERGO_EXPECT}
    "--match=miniapp mpi: one heading\n"
    -- sh -c "${mpi_sh}
once '^miniapp: 2 steps, profile default, on the sim node \\(SIMULATED\\)$' 'the heading'
once '^miniapp: 4 MPI ranks; rank r does 1 \\+ 0\\.08 \\(r mod 8\\) times the work \\(up to 1\\.24x\\)' 'the ranks line'
echo 'miniapp mpi: one heading'
" miniapp-mpi ${mpi_run} ${mpi_mini} ${MPIEXEC_POSTFLAGS} --steps 2)
  set_tests_properties(example_miniapp_mpi PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim" FAIL_REGULAR_EXPRESSION "FAIL:")

  # The merged report of the mini-app: ranks do unequal work, so a compute region shows an
  # imbalance of at least 1 %.
  add_test(NAME example_miniapp_mpi_report COMMAND ${ERGO_EXPECT}
    "--match=merged report: all 5 region lines found\n"
    -- sh -c "${mpi_sh}
once '^Total wall clock time for Global = ' 'Total wall clock time for Global'
once '^MPI-Tasks: 4, nodes: [0-9]+; ' 'the MPI-Tasks header'
regions '^\\* Timestep +: .*${mpi_ranks}' '^- \\* FIND_HSML +: .*${mpi_ranks}' \
  '^- - \\* Exchange +: .*${mpi_ranks}' '^- - \\* HYDRO_COMM +: .*${mpi_ranks}' \
  '^- - \\* HYDRO_COMPUTE +: .* \\| ranks min .*, imbalance +([1-9][0-9]*)(\\.[0-9]+)?%'
" miniapp-mpi-report ${mpi_run} ${mpi_mini} ${MPIEXEC_POSTFLAGS} --steps 2)
  set_tests_properties(example_miniapp_mpi_report PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim" FAIL_REGULAR_EXPRESSION "FAIL:")

  # --oracle is rank 0's alone: one table, not four.
  add_test(NAME example_miniapp_mpi_oracle COMMAND ${ERGO_EXPECT}
    "--match=miniapp mpi: one oracle\n"
    -- sh -c "${mpi_sh}
once '^Oracle \\(exhaustive, noise-free\\) ' 'the oracle heading'
once '^best configs differ across regions in: ' 'the oracle summary'
echo 'miniapp mpi: one oracle'
" miniapp-mpi-oracle ${mpi_run} ${mpi_mini} ${MPIEXEC_POSTFLAGS} --oracle)
  set_tests_properties(example_miniapp_mpi_oracle PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env}" FAIL_REGULAR_EXPRESSION "FAIL:")

  # Power of a merged report is per node (energy summed over the nodes' readers / the time those
  # readers spent in the region): on the sim node every line of text, CSV and JSON lies in the
  # node's physical range (sim/model.c: about 40 W idle to 160 W all cores busy), on one node
  # and on four pretend nodes (a rank each).
  foreach(split 1 4)
    add_test(NAME example_miniapp_mpi_power_split${split} COMMAND ${ERGO_EXPECT}
      "--match=power: [0-9]+ text, [0-9]+ csv, [0-9]+ json figures in \\[30, 170\\] W\n$"
      -- sh -c [=[
check="$1"; shift
rm -f power.txt power.csv power.json
"$@" > /dev/null || { echo "FAIL: exit code $?"; exit 1; }
cat power.txt
sh "$check" 30 170 power.txt power.csv power.json
]=] miniapp-mpi-power ${CMAKE_CURRENT_SOURCE_DIR}/support/check_power.sh ${mpi_run} ${mpi_mini}
      ${MPIEXEC_POSTFLAGS} --steps 2)
    file(MAKE_DIRECTORY ${mpi_dir}/power${split})
    set_tests_properties(example_miniapp_mpi_power_split${split} PROPERTIES
      WORKING_DIRECTORY ${mpi_dir}/power${split} FAIL_REGULAR_EXPRESSION "FAIL:"
      ENVIRONMENT "${mpi_env};ERGO_NODE_SPLIT=${split};ERGO_REPORT=power.txt;ERGO_REPORT_CSV=power.csv;ERGO_REPORT_JSON=power.json")
  endforeach()
endif()

# The ranks of one node share its sim node (sim/node.c): 4 ranks doing unequal work, then waiting
# for the slowest (ergo_sim_wait), on one node and on two pretend nodes of two ranks.  The job's
# Global energy in the merged report is the model's figure for the sum of every rank's activity on
# its slice of the node, which tests/mpi/node_app.c computes from SIM.md's equations itself.
# And the estimate meter's node figure is the sum of its ranks' CPU time: about 4x one rank's.
if(ERGO_WITH_MPI)
  add_executable(ergo-test-node-app mpi/node_app.c)
  target_link_libraries(ergo-test-node-app PRIVATE ergo MPI::MPI_C m)
  set(node_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS} $<TARGET_FILE:ergo-test-node-app> ${MPIEXEC_POSTFLAGS})
  set(node_dir ${CMAKE_CURRENT_BINARY_DIR}/node_runs)
  file(MAKE_DIRECTORY ${node_dir})
  set(node_env "ERGO_STATE_DIR=${node_dir}/state;OMP_NUM_THREADS=1;ERGO_KNOBS=none;ERGO_REPORT=stdout"
    ${ERGO_MPI_TEST_ENV})
  foreach(split 1 2)
    add_test(NAME mpi_sim_node_shared_split${split} COMMAND ${ERGO_EXPECT}
      "--match=job energy [0-9.]+ J is the model's [0-9.]+ J\n$" -- sh -c [=[
out=$("$@" --sim 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
want=$(printf '%s\n' "$out" | sed -n 's/^node_app: .* expected job energy \([0-9.]*\) J$/\1/p')
got=$(printf '%s\n' "$out" | sed -n 's/^Total energy for Global = \([0-9.e+]*\) J .*/\1/p')
[ -n "$want" ] && [ -n "$got" ] || { echo "FAIL: no expected or no Global energy"; exit 1; }
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 1e-5 * w) }' ||
  { echo "FAIL: job energy $got J, the model's is $want J"; exit 1; }
echo "job energy $got J is the model's $want J"
]=] node ${node_run})
    set_tests_properties(mpi_sim_node_shared_split${split} PROPERTIES WORKING_DIRECTORY ${node_dir}
      ENVIRONMENT "${node_env};ERGO_PLATFORM=sim;ERGO_NODE_SPLIT=${split}"
      FAIL_REGULAR_EXPRESSION "FAIL:")
  endforeach()

  # Each rank burns 0.5 s of CPU time: the node's estimate counts all four ranks (3.5x to 5x one
  # rank's figure: the ranks' MPI start and barrier add a little CPU time of their own).
  add_test(NAME mpi_estimate_node COMMAND ${ERGO_EXPECT}
    "--match=node estimate [0-9.]+ J is [0-9.]+x one rank's [0-9.]+ J\n$" -- sh -c [=[
out=$("$@" --burn 0.5 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
one=$(printf '%s\n' "$out" | sed -n "s/^node_app: one rank's estimate \([0-9.]*\) J$/\1/p")
got=$(printf '%s\n' "$out" | sed -n 's/^Total energy for Global = \([0-9.e+]*\) J .*/\1/p')
[ -n "$one" ] && [ -n "$got" ] || { echo "FAIL: no rank figure or no Global energy"; exit 1; }
x=$(awk -v g="$got" -v o="$one" 'BEGIN { printf "%.2f", g / o }')
awk -v x="$x" 'BEGIN { exit !(x >= 3.5 && x <= 5) }' ||
  { echo "FAIL: node estimate $got J is ${x}x one rank's $one J (expected about 4x)"; exit 1; }
echo "node estimate $got J is ${x}x one rank's $one J"
]=] node ${node_run})
  set_tests_properties(mpi_estimate_node PROPERTIES WORKING_DIRECTORY ${node_dir}
    ENVIRONMENT "${node_env};ERGO_PLATFORM=real;ERGO_ENERGY=estimate"
    FAIL_REGULAR_EXPRESSION "FAIL:")
endif()
