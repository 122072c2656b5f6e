# mpi.cmake - ctests of ergo over MPI, each run under mpiexec with 4 ranks on this one machine
# (3 where a node's cores must not divide evenly): one merged report with a region that only
# rank 3 runs, pretend nodes (ERGO_NODE_SPLIT=2) with their energy readers, and node-consistent
# tuning under sweep and online.
if(ERGO_WITH_MPI)
  add_executable(ergo-test-ranks mpi/ranks_app.c)
  target_link_libraries(ergo-test-ranks PRIVATE ergo MPI::MPI_C)
  # The same linked with libergo-mpi (before MPI): its MPI_Allreduce meets the sim node's clocks.
  add_executable(ergo-test-ranks-meet mpi/ranks_app.c)
  target_link_libraries(ergo-test-ranks-meet PRIVATE ergo ergo_mpi MPI::MPI_C)
  add_executable(ergo-test-check-job mpi/check_job.c)
  target_link_libraries(ergo-test-check-job PRIVATE PkgConfig::JANSSON m)
  set(mpi_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi_runs)
  file(MAKE_DIRECTORY ${mpi_dir})
  # Root in CI and containers; 4 ranks on 2 cores.
  set(mpi_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS})
  set(ranks_app $<TARGET_FILE:ergo-test-ranks>)
  set(check_job $<TARGET_FILE:ergo-test-check-job>)
  set(mpi_env "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_KNOBS=none;ERGO_REPORT=stdout"
    ${ERGO_MPI_TEST_ENV})

  # One merged report: exactly one Global line in the whole output, the job header, rank
  # figures on every region, ONLY_RANK3 (never run on rank 0) on 1 of 4 ranks; the JSON agrees.
  add_test(NAME mpi_merged_report COMMAND ${ERGO_EXPECT} "--match=one merged report\n$" -- sh -c [=[
check="$1"; shift
rm -f merged.json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c '^Total wall clock time for Global = ')
[ "$n" -eq 1 ] || { echo "FAIL: $n reports printed, expected one merged report"; exit 1; }
for re in '^MPI-Tasks: 4, nodes: 1; sec is the mean over ranks' \
  '^\* Timestep +: [0-9.]+ sec, +[0-9.]+% \| ranks min [0-9.]+ max [0-9.]+ std [0-9.]+ sec, imbalance +[0-9.]+%$' \
  '^- \* WORK +: [0-9.]+ sec, +[0-9.]+% \| ranks min ' \
  '^- \* ONLY_RANK3 +: [0-9.]+ sec, +[0-9.]+% \| ranks min 0\.0000 max [0-9.]+ std [0-9.]+ sec, imbalance 300\.00% \| on 1/4 ranks$'; do
  printf '%s\n' "$out" | grep -Eq -- "$re" || { echo "FAIL: no line matches $re"; exit 1; }
done
"$check" merged merged.json 4 || exit 1
ls merged.rank*.json 2>/dev/null && { echo "FAIL: per-rank files without ERGO_REPORT_RANKS"; exit 1; }
echo "one merged report"
]=] mpi ${check_job} ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS})
  file(MAKE_DIRECTORY ${mpi_dir}/merged)
  set_tests_properties(mpi_merged_report PROPERTIES WORKING_DIRECTORY ${mpi_dir}/merged
    ENVIRONMENT "${mpi_env};ERGO_ENERGY=none;ERGO_REPORT_JSON=merged.json"
    FAIL_REGULAR_EXPRESSION "FAIL:")

  # The same program without mpiexec: a singleton MPI job is one rank, so a plain report.
  add_test(NAME mpi_singleton COMMAND ${ERGO_EXPECT}
    "--match=^Total wall clock time for Global = [0-9.]+ sec\n\\* Timestep +: [0-9.]+ sec, +[0-9.]+%\n"
    -- ${ranks_app} --steps 1)
  set_tests_properties(mpi_singleton PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env};ERGO_ENERGY=none" FAIL_REGULAR_EXPRESSION "MPI-Tasks|ranks min")

  # Two pretend nodes of two ranks on the sim node: ranks 0 and 2 read their node's energy, 1 and
  # 3 read none, and the job's energy is the sum of the two readers'.
  set(mpi_readers "node readers: 0 2 \\(2\\)\; job energy [0-9.]+ J, sum of readers [0-9.]+ J\nreaders=2\nok\n")
  add_test(NAME mpi_node_energy COMMAND ${ERGO_EXPECT} "--match=${mpi_readers}.*ok\n$" -- sh -c [=[
check="$1"; shift
rm -f job*.json
"$@" || { echo "FAIL: exit code $?"; exit 1; }
"$check" energy job.json job.rank0.json job.rank1.json job.rank2.json job.rank3.json || exit 1
"$check" merged job.json 4 || exit 1
]=] mpi ${check_job} ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim)
  file(MAKE_DIRECTORY ${mpi_dir}/energy)
  set_tests_properties(mpi_node_energy PROPERTIES WORKING_DIRECTORY ${mpi_dir}/energy
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim;ERGO_NODE_SPLIT=2;ERGO_REPORT_RANKS=1;ERGO_REPORT_JSON=job.json"
    FAIL_REGULAR_EXPRESSION "FAIL:")

  # The same on the real powercap path: the fake RAPL machine (a private mount namespace; root
  # only, else SKIPPED) under mpiexec.  Both pretend nodes read the one fake package, and the
  # merged Global energy is the sum of what the two readers' own reports say.
  if(TARGET ergo-fakesys-run)
    add_test(NAME mpi_node_energy_powercap COMMAND ${ERGO_EXPECT} "--match=${mpi_readers}$"
      -- sh -c [=[
fake="$1"; check="$2"; shift 2
rm -f job*.json
"$fake" --watts=100 -- "$@"; rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
"$check" energy job.json job.rank0.json job.rank1.json job.rank2.json job.rank3.json || exit 1
]=] mpi $<TARGET_FILE:ergo-fakesys-run> ${check_job} ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS})
    file(MAKE_DIRECTORY ${mpi_dir}/powercap)
    set_tests_properties(mpi_node_energy_powercap PROPERTIES WORKING_DIRECTORY ${mpi_dir}/powercap
      ENVIRONMENT "${mpi_env};ERGO_ENERGY=powercap;ERGO_NODE_SPLIT=2;ERGO_REPORT_RANKS=1;ERGO_REPORT_JSON=job.json;ERGO_REPORT=none"
      FAIL_REGULAR_EXPRESSION "FAIL:" SKIP_RETURN_CODE 77)
  endif()

  # A constant-power fake RAPL machine (--watts=100: package 100 W, dram 10 W) under mpiexec:
  # every figure of power in text, CSV and JSON is 110 W within 1 %, on one node and on two
  # pretend nodes, and `ergo compare` takes the slowest rank's time as time to solution.
  # The ranks sleep (--sleep), so the counters' thread keeps time on an oversubscribed host;
  # Unaccounted lines under 20 ms are a few counter steps and not checked.
  if(TARGET ergo-fakesys-run)
    foreach(split 1 2)
      add_test(NAME mpi_power_constant_split${split} COMMAND ${ERGO_EXPECT}
        "--match=power: [0-9]+ text, [0-9]+ csv, [0-9]+ json figures in \\[108\\.9, 111\\.1\\] W\n.*compare: time to solution is the slowest rank's\n$"
        -- sh -c [=[
fake="$1"; check="$2"; cli="$3"; shift 3
rm -f power.txt power.csv power.json
"$fake" --watts=100 --period-us=100 -- "$@"; rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
cat power.txt
sh "$check" 108.9 111.1 power.txt power.csv power.json 0.02 || exit 1
max=$(grep -m1 '^\* Timestep' power.txt | sed 's/.* max \([0-9.]*\) std .*/\1/')
"$cli" compare --csv power.json > compare.csv || { echo "FAIL: ergo compare"; exit 1; }
cat compare.csv
t=$(awk -F, '$3 == "Timestep" { print $5 }' compare.csv)
awk -v t="$t" -v m="$max" 'BEGIN { d = t - m; exit !(t != "" && d < 0.00006 && d > -0.00006) }' ||
  { echo "FAIL: compare's Timestep time $t is not the slowest rank's $max"; exit 1; }
echo "compare: time to solution is the slowest rank's"
]=] mpi $<TARGET_FILE:ergo-fakesys-run> ${CMAKE_CURRENT_SOURCE_DIR}/support/check_power.sh
        $<TARGET_FILE:ergo-cli> ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sleep)
      file(MAKE_DIRECTORY ${mpi_dir}/power${split})
      set_tests_properties(mpi_power_constant_split${split} PROPERTIES
        WORKING_DIRECTORY ${mpi_dir}/power${split} FAIL_REGULAR_EXPRESSION "FAIL:" SKIP_RETURN_CODE 77
        ENVIRONMENT "${mpi_env};ERGO_ENERGY=powercap;ERGO_NODE_SPLIT=${split};ERGO_REPORT=power.txt;ERGO_REPORT_CSV=power.csv;ERGO_REPORT_JSON=power.json")
    endforeach()
  endif()

  # Node-consistent tuning: every rank logs the settings its WORK and EXCHANGE ran under at every
  # step; the two ranks of each pretend node must agree at every step (their work differs, so
  # their own measurements would not), and the tuner must really have moved the settings.
  foreach(policy sweep online)
    add_test(NAME mpi_node_${policy} COMMAND ${ERGO_EXPECT}
      "--match=identical settings on each pretend node over 14 steps \\([0-9]+ distinct on node 0\\)\n$"
      -- sh -c [=[
out=$("$@" 2>&1); rc=$?
[ "$rc" -eq 0 ] || { printf '%s\n' "$out"; echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep '^config ' | awk '
  { split($2, s, "="); split($3, r, "="); c[s[2], r[2]] = $4 " " $5; steps = s[2] + 1 }
  END {
    bad = 0
    for (i = 0; i < steps; i++) {
      if (c[i, 0] != c[i, 1]) { print "FAIL: step " i ": rank 0 " c[i, 0] ", rank 1 " c[i, 1]; bad = 1 }
      if (c[i, 2] != c[i, 3]) { print "FAIL: step " i ": rank 2 " c[i, 2] ", rank 3 " c[i, 3]; bad = 1 }
      if (!((c[i, 0]) in seen)) { seen[c[i, 0]] = 1; n++ }
    }
    if (n < 3) { print "FAIL: node 0 ran only " n " distinct settings: nothing was tuned"; bad = 1 }
    if (!bad) print "identical settings on each pretend node over " steps " steps (" n " distinct on node 0)"
    exit bad
  }'
]=] mpi ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --steps 14 --log-configs)
    file(MAKE_DIRECTORY ${mpi_dir}/${policy})
    set_tests_properties(mpi_node_${policy} PROPERTIES WORKING_DIRECTORY ${mpi_dir}/${policy}
      ENVIRONMENT "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_REPORT=none;ERGO_PLATFORM=sim;ERGO_NODE_SPLIT=2;ERGO_POLICY=${policy};ERGO_MODEL=model.json;${ERGO_MPI_TEST_ENV}"
      FAIL_REGULAR_EXPRESSION "FAIL:")
  endforeach()

  # Three ranks on the 20-core sim node hold 7, 7 and 6 of its cores: node rank 0 decides
  # threads as its share of 7 and each rank runs the same share of its own, so node rank 2 runs
  # round(t * 6 / 7) where ranks 0 and 1 run t, never a value its knob refuses; frequencies are
  # the same on all.  The run is tuned (a summary, WORK in the model) with no error line.
  set(mpi_run3 ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS})
  add_test(NAME mpi_node_uneven_shares COMMAND ${ERGO_EXPECT}
    "--match=the ranks of node 0 hold different shares of its cores.*each rank's share of the node's decisions over 20 steps \\([0-9]+ distinct on rank 0\\)\n$"
    -- sh -c [=[
rm -f model.json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out" | grep -v '^config '
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep -q 'ergo: error' && { echo "FAIL: error lines"; exit 1; }
printf '%s\n' "$out" | grep -q '^ergo: tuning summary (online' || { echo "FAIL: no tuning summary"; exit 1; }
grep -q '"Global/Timestep/WORK"' model.json || { echo "FAIL: WORK is not in model.json"; exit 1; }
printf '%s\n' "$out" | grep '^config ' | awk '
  { split($2, s, "="); split($3, rk, "="); split($4, w, "[=/]"); split($5, x, "[=/]")
    c[s[2], rk[2]] = w[2] "/" w[3] " " x[2] "/" x[3]; t[s[2], rk[2]] = w[4] " " x[4]; steps = s[2] + 1 }
  END {
    bad = 0; cores[0] = 7; cores[1] = 7; cores[2] = 6
    for (i = 0; i < steps; i++) {
      split(t[i, 0], t0, " ")
      for (r = 1; r < 3; r++) {
        if (c[i, r] != c[i, 0]) { print "FAIL: step " i ": rank " r " frequencies " c[i, r] ", rank 0 " c[i, 0]; bad = 1 }
        split(t[i, r], tr, " ")
        for (k = 1; k <= 2; k++) {
          want = int((t0[k] * cores[r] + 3) / 7); if (want < 1) want = 1
          if (tr[k] != want) { print "FAIL: step " i ": rank " r " ran " tr[k] " threads for rank 0'"'"'s " t0[k] ", not " want; bad = 1 }
        }
      }
      if (!((c[i, 0] " " t[i, 0]) in seen)) { seen[c[i, 0] " " t[i, 0]] = 1; n++ }
    }
    if (n < 3) { print "FAIL: rank 0 ran only " n " distinct settings: nothing was tuned"; bad = 1 }
    if (!bad) print "each rank'"'"'s share of the node'"'"'s decisions over " steps " steps (" n " distinct on rank 0)"
    exit bad
  }'
]=] mpi ${mpi_run3} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --steps 20 --log-configs)
  file(MAKE_DIRECTORY ${mpi_dir}/uneven)
  set_tests_properties(mpi_node_uneven_shares PROPERTIES WORKING_DIRECTORY ${mpi_dir}/uneven
    ENVIRONMENT "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_REPORT=none;ERGO_PLATFORM=sim;ERGO_POLICY=online;ERGO_MODEL=model.json;${ERGO_MPI_TEST_ENV}"
    FAIL_REGULAR_EXPRESSION "FAIL:")

  # A rank of the node without the thread knob (ERGO_KNOBS=cpufreq,uncore on rank 1 alone):
  # the node's thread decisions are one warning there, not an error at every execution, and the
  # run is tuned still.
  add_test(NAME mpi_node_knob_missing COMMAND ${ERGO_EXPECT}
    "--match=ergo: warning: rank 1: node 0 decided threads=[0-9]+ for '[^']+', but this rank has no usable threads knob [^\n]*\\(fix: [^\n]*\n.*one warning, tuned\n$"
    -- sh -c [=[
rm -f model.json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep -q 'ergo: error' && { echo "FAIL: error lines"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c 'ergo: warning: rank 1: node 0 decided')
[ "$n" -eq 1 ] || { echo "FAIL: $n warnings about the node's decisions, expected one"; exit 1; }
grep -q '"Global/Timestep/WORK"' model.json || { echo "FAIL: WORK is not in model.json"; exit 1; }
echo "one warning, tuned"
]=] mpi ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --steps 14 :
    ${MPIEXEC_NUMPROC_FLAG} 1 env ERGO_KNOBS=cpufreq,uncore ${ranks_app} --sim --steps 14)
  file(MAKE_DIRECTORY ${mpi_dir}/knob_missing)
  set_tests_properties(mpi_node_knob_missing PROPERTIES WORKING_DIRECTORY ${mpi_dir}/knob_missing
    ENVIRONMENT "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_REPORT=none;ERGO_PLATFORM=sim;ERGO_POLICY=online;ERGO_MODEL=model.json;${ERGO_MPI_TEST_ENV}"
    FAIL_REGULAR_EXPRESSION "FAIL:")

  # Timestep's own time is ONLY_RANK3, which rank 3 alone runs; the node's energy reader (rank 0)
  # spends no time of its own in Timestep, so it reads no energy that stands for it.  Under an
  # objective that weighs energy neither is tuned (no choice resting on a rounding-noise energy)
  # and one line says why, naming both; the model holds neither.
  add_test(NAME mpi_node_energy_elsewhere COMMAND ${ERGO_EXPECT}
    "--match=ergo: online: 2 regions not tuned for want of an energy reading: [^\n]* \\(fix: ERGO_OBJECTIVE=time[^\n]*\n.*neither tuned on another rank's time\n$"
    -- sh -c [=[
rm -f model.json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
printf '%s\n' "$out" | grep -q '^ergo: tuning summary (online' || { echo "FAIL: no tuning summary"; exit 1; }
printf '%s\n' "$out" | grep -E '^ergo: +Global/Timestep(/ONLY_RANK3)? ' && { echo "FAIL: tuned on energy the reader did not measure"; exit 1; }
grep -E '"Global/Timestep(/ONLY_RANK3)?":' model.json && { echo "FAIL: in model.json"; exit 1; }
grep -q '"Global/Timestep/WORK"' model.json || { echo "FAIL: WORK is not in model.json"; exit 1; }
why=$(printf '%s\n' "$out" | grep 'not tuned for want of an energy reading')
for re in "'Global/Timestep/ONLY_RANK3' \(slowest [0-9.]+ ms, reader never\)" \
  "'Global/Timestep' \(slowest [0-9.]+ ms, reader 0\.000 ms\)"; do
  printf '%s\n' "$why" | grep -Eq -- "$re" || { echo "FAIL: the line does not say $re"; exit 1; }
done
echo "neither tuned on another rank's time"
]=] mpi ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --steps 20)
  file(MAKE_DIRECTORY ${mpi_dir}/elsewhere)
  set_tests_properties(mpi_node_energy_elsewhere PROPERTIES WORKING_DIRECTORY ${mpi_dir}/elsewhere
    ENVIRONMENT "ERGO_STATE_DIR=${mpi_dir}/state;OMP_NUM_THREADS=1;ERGO_REPORT=none;ERGO_PLATFORM=sim;ERGO_POLICY=online;ERGO_MODEL=model.json;${ERGO_MPI_TEST_ENV}"
    FAIL_REGULAR_EXPRESSION "FAIL:")

  # A static link (libergo.a, libergo-mpi.a with -u ergo__job_mpi_ops): one merged report, and
  # no libergo library needed at run time.
  add_executable(ergo-test-ranks-static mpi/ranks_app.c)
  target_link_libraries(ergo-test-ranks-static PRIVATE ergo_static ergo_mpi_static MPI::MPI_C)
  add_test(NAME mpi_static_merged_report COMMAND ${ERGO_EXPECT}
    "--match=(^|\n)MPI-Tasks: 4, nodes: 1; .*one merged report, static link\n$" -- sh -c [=[
app="$1"; shift
readelf -d "$app" | grep -E 'NEEDED.*libergo' && { echo "FAIL: $app needs a libergo library"; exit 1; }
out=$("$@" "$app" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c '^Total wall clock time for Global = ')
[ "$n" -eq 1 ] || { echo "FAIL: $n reports printed, expected one merged report"; exit 1; }
echo "one merged report, static link"
]=] mpi $<TARGET_FILE:ergo-test-ranks-static> ${mpi_run})
  set_tests_properties(mpi_static_merged_report PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env};ERGO_ENERGY=none" FAIL_REGULAR_EXPRESSION "FAIL:")

  # On the sim node an MPI_Allreduce of a program linked with libergo-mpi moves every rank's
  # virtual clock to the slowest one's: the ranks' Timesteps end together (no imbalance) and the
  # wait shows in EXCHANGE (rank 0 waits longest).  Loaded by libergo alone (ergo-test-ranks), the
  # library cannot intercept, and the ranks' Timesteps differ as before.
  add_test(NAME mpi_sim_collective_meets COMMAND ${ERGO_EXPECT}
    "--match=^.*\\* Timestep +: [0-9.]+ sec, +[0-9.]+% [|] ranks min [0-9.]+ max [0-9.]+ std 0[.]0000 sec, imbalance +0[.]00% .*- \\* EXCHANGE +: [0-9.]+ sec, +[0-9.]+% [|] ranks min [0-9.]+ max [0-9.]+ std [0-9.]*[1-9][0-9.]* sec.*not intercepted: Timestep imbalance +[1-9][0-9]*[.][0-9]+%\n$"
    -- sh -c [=[
meet="$1" plain="$2"; shift 2
"$@" "$meet" --sim || { echo "FAIL: exit code $?"; exit 1; }
out=$("$@" "$plain" --sim 2>&1) || { echo "FAIL: exit code $?"; exit 1; }
line=$(printf '%s\n' "$out" | grep '^\* Timestep')
echo "not intercepted: Timestep imbalance${line##*imbalance}" | sed 's/ |.*//'
]=] mpi $<TARGET_FILE:ergo-test-ranks-meet> ${ranks_app} ${mpi_run})
  set_tests_properties(mpi_sim_collective_meets PROPERTIES WORKING_DIRECTORY ${mpi_dir}
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim" FAIL_REGULAR_EXPRESSION "FAIL:")

  # Ranks that end without ergo_finalize (tests/exit.cmake has the serial cases): ergo finalizes
  # at exit without one MPI call, so every rank writes its own files, as after MPI_Finalize.
  # After MPI_Finalize on every rank: one line at exit (rank 0's), one that the regions cannot be
  # merged, each rank's final report.
  add_test(NAME mpi_exit_after_mpi_finalize COMMAND ${ERGO_EXPECT}
    "--match=ranks_app: 4 ranks, 3 steps, no ergo_finalize\n"
    "--match=ergo: warning: ergo_finalize: the 4 ranks' regions cannot be merged \\(MPI is finalised, the program ended without ergo_finalize, or a rank failed ergo_init\\)"
    "--match=\nfour final reports\n$" -- sh -c [=[
rm -f end.*json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c 'ending without ergo_finalize')
[ "$n" -eq 1 ] || { echo "FAIL: $n lines at exit, expected rank 0's"; exit 1; }
for r in 0 1 2 3; do
  grep -q '"complete": true' end.rank$r.json || { echo "FAIL: no final end.rank$r.json"; exit 1; }
done
echo "four final reports"
]=] mpi ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --end mpi-first)
  file(MAKE_DIRECTORY ${mpi_dir}/end_mpi_first)
  set_tests_properties(mpi_exit_after_mpi_finalize PROPERTIES WORKING_DIRECTORY
    ${mpi_dir}/end_mpi_first TIMEOUT 120 FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim;ERGO_REPORT=none;ERGO_REPORT_JSON=end.json")
  # One rank calls exit() while the others wait for it in MPI_Barrier (an error exit): it writes
  # its own report and ends, and the launcher ends the job.  A collective at its exit would wait
  # for ranks that never come, and the job would hang.
  add_test(NAME mpi_exit_one_rank COMMAND ${ERGO_EXPECT}
    "--match=ranks_app: rank 3 exits\n"
    "--match=ergo: warning: the program is ending without ergo_finalize \\(exit\\(\\), a return from main or a Fortran STOP\\)"
    "--match=\nrank 3's final report\n$" -- sh -c [=[
rm -f end.*json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] || { echo "FAIL: exit code 0, expected the exiting rank's"; exit 1; }
grep -q '"complete": true' end.rank3.json || { echo "FAIL: no final end.rank3.json"; exit 1; }
echo "rank 3's final report"
]=] mpi ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS} --sim --end rank-exit)
  file(MAKE_DIRECTORY ${mpi_dir}/end_rank_exit)
  set_tests_properties(mpi_exit_one_rank PROPERTIES WORKING_DIRECTORY ${mpi_dir}/end_rank_exit
    TIMEOUT 60 FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "${mpi_env};ERGO_PLATFORM=sim;ERGO_REPORT=none;ERGO_REPORT_JSON=end.json")

  # A libergo-mpi that libergo must refuse (tests/mpi/fake_job_mpi.c, preloaded so that its table
  # is the one found): of another job ABI, or built for another MPI.  One warning, then every
  # rank reports on its own in its own files; nothing calls into the table (it would abort).
  foreach(fake abi mpich)
    add_library(ergo-test-fake-job-${fake} SHARED mpi/fake_job_mpi.c)
    target_include_directories(ergo-test-fake-job-${fake} PRIVATE ${PROJECT_SOURCE_DIR})
  endforeach()
  target_compile_definitions(ergo-test-fake-job-abi PRIVATE FAKE_ABI=999)
  target_compile_definitions(ergo-test-fake-job-mpich PRIVATE FAKE_MPICH=1)
  set(mpi_refused [=[
rm -f job*.json
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: exit code $rc"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c 'MPI is initialised but ergo cannot use it')
[ "$n" -eq 1 ] || { echo "FAIL: $n warnings, expected one"; exit 1; }
for r in 0 1 2 3; do [ -f job.rank$r.json ] || { echo "FAIL: no job.rank$r.json"; exit 1; }; done
[ -f job.json ] && { echo "FAIL: a merged job.json without MPI"; exit 1; }
echo "refused: 4 ranks on their own"
]=])
  set(mpi_refused_abi "libergo-mpi's job ABI is 999 but this libergo's is [0-9]+; fix: install")
  set(mpi_refused_mpich "libergo-mpi is built for MPICH[|]Intel\\(R\\) MPI[|]MVAPICH but this process runs [^\n]+; fix: build ergo against")
  foreach(fake abi mpich)
    add_test(NAME mpi_job_refused_${fake} COMMAND ${ERGO_EXPECT}
      "--match=ergo: warning: MPI is initialised but ergo cannot use it: ${mpi_refused_${fake}}.*refused: 4 ranks on their own\n$"
      -- sh -c "${mpi_refused}" mpi ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS})
    file(MAKE_DIRECTORY ${mpi_dir}/refused_${fake})
    set_tests_properties(mpi_job_refused_${fake} PROPERTIES
      WORKING_DIRECTORY ${mpi_dir}/refused_${fake}
      ENVIRONMENT "${mpi_env};ERGO_ENERGY=none;ERGO_REPORT=none;ERGO_REPORT_JSON=job.json;LD_PRELOAD=$<TARGET_FILE:ergo-test-fake-job-${fake}>"
      FAIL_REGULAR_EXPRESSION "FAIL:")
  endforeach()

  # MPI initialised but no libergo-mpi anywhere (libergo copied alone into lib/, found first by
  # LD_LIBRARY_PATH): the same one warning naming where it looked, every rank on its own.
  add_test(NAME mpi_job_no_libergo_mpi COMMAND ${ERGO_EXPECT}
    "--match=ergo: warning: MPI is initialised but ergo cannot use it: libergo-mpi[.]so[.][0-9]+ is neither beside libergo \\(in [^\n]*/no_libergo_mpi/lib\\) nor on the library path; fix: link the program with -lergo-mpi.*refused: 4 ranks on their own\n$"
    -- sh -c "rm -rf lib && mkdir lib && cp \"$1\" lib/ && shift && export LD_LIBRARY_PATH=$PWD/lib && ${mpi_refused}"
    mpi $<TARGET_SONAME_FILE:ergo> ${mpi_run} ${ranks_app} ${MPIEXEC_POSTFLAGS})
  file(MAKE_DIRECTORY ${mpi_dir}/no_libergo_mpi)
  set_tests_properties(mpi_job_no_libergo_mpi PROPERTIES WORKING_DIRECTORY ${mpi_dir}/no_libergo_mpi
    ENVIRONMENT "${mpi_env};ERGO_ENERGY=none;ERGO_REPORT=none;ERGO_REPORT_JSON=job.json"
    FAIL_REGULAR_EXPRESSION "FAIL:")
endif()

# libergo links no MPI: a serial program that uses it maps no MPI library, and libergo.so names
# none (its MPI layer is libergo-mpi, loaded only by MPI programs).
add_executable(ergo-test-serial-maps mpi/serial_maps.c)
target_link_libraries(ergo-test-serial-maps PRIVATE ergo)
add_test(NAME serial_loads_no_mpi COMMAND ${ERGO_EXPECT}
  "--match=^serial: no MPI library mapped\nlibergo: no MPI library needed\n$" -- sh -c [=[
"$1" || { echo "FAIL: exit code $?"; exit 1; }
ldd "$2" | grep -Ei 'libmpi|libopen-|libpmix|libergo-mpi' && { echo "FAIL: $2 needs MPI"; exit 1; }
echo "libergo: no MPI library needed"
]=] serial $<TARGET_FILE:ergo-test-serial-maps> $<TARGET_FILE:ergo>)
set_tests_properties(serial_loads_no_mpi PROPERTIES
  ENVIRONMENT "ERGO_STATE_DIR=${CMAKE_CURRENT_BINARY_DIR}/serial_state;ERGO_KNOBS=none;ERGO_ENERGY=none;ERGO_REPORT=none"
  FAIL_REGULAR_EXPRESSION "FAIL:")
