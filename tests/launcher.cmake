# launcher.cmake - a program that never initialises MPI, started as several processes by a
# launcher (mpiexec, srun): every process writes its own files, named by the rank the launcher
# gave it (<name>.rankN), so no two processes share a step, balance or report file; rank 0 alone
# says so.  The serial timers example (5 steps) is the program.
set(launch_dir ${CMAKE_CURRENT_BINARY_DIR}/launcher)
file(MAKE_DIRECTORY ${launch_dir})
set(launch_timers $<TARGET_FILE:ergo-example-timers>)

# Every rank's files: rank_files N checks that ergo-steps.rankN.txt has exactly the 5 step headers
# "Step S MPI-Tasks: 4 Task:N" for S = 1..5 and nothing else on a "Step" line, and that
# ergo-balance.rankN.txt has one header block and exactly 5 step lines, Step= 1 to 5 in order.
set(launch_sh [=[
rank_files() {
  r=$1 size=$2
  s=ergo-steps.rank$r.txt b=ergo-balance.rank$r.txt
  [ -f "$s" ] && [ -f "$b" ] || { echo "FAIL: rank $r: no $s or $b"; ls; exit 1; }
  got=$(grep '^Step ' "$s" | tr '\n' '|')
  want="Step 1 MPI-Tasks: $size Task:$r|Step 2 MPI-Tasks: $size Task:$r|Step 3 MPI-Tasks: $size Task:$r|Step 4 MPI-Tasks: $size Task:$r|Step 5 MPI-Tasks: $size Task:$r|"
  [ "$got" = "$want" ] || { echo "FAIL: $s has step lines '$got', expected '$want'"; exit 1; }
  n=$(grep -c '^Total wall clock time for Global' "$s")
  [ "$n" -eq 5 ] || { echo "FAIL: $s has $n reports, expected 5"; exit 1; }
  got=$(grep -Eo '^  Step= +[0-9]+' "$b" | tr -s ' ' | tr '\n' '|')
  [ "$got" = " Step= 1| Step= 2| Step= 3| Step= 4| Step= 5|" ] ||
    { echo "FAIL: $b has step lines '$got', expected Step= 1 to 5 once each"; exit 1; }
  n=$(grep -c '^Headers for balance file:' "$b")
  [ "$n" -eq 1 ] || { echo "FAIL: $b has $n header blocks, expected 1"; exit 1; }
  [ -s ergo-report.rank$r.txt ] || { echo "FAIL: rank $r: no ergo-report.rank$r.txt"; exit 1; }
}
]=])

if(MPIEXEC_EXECUTABLE)
  # mpiexec -n 4 of the serial program: 4 step files, 4 balance files, 4 reports, each exactly its
  # own rank's 5 steps; no shared ergo-steps.txt; nothing printed to stdout by ergo; the launcher
  # line once, from rank 0.
  add_test(NAME launcher_mpiexec_files_per_rank COMMAND ${ERGO_EXPECT}
    "--match=4 processes, 4 sets of files\n$" -- sh -c "${launch_sh}
rm -f ergo-*.txt
out=\$(\"\$@\" 2>&1); rc=\$?
printf '%s\\n' \"\$out\"
[ \"\$rc\" -eq 0 ] || { echo \"FAIL: exit code \$rc\"; exit 1; }
for r in 0 1 2 3; do rank_files \$r 4; done
ls ergo-steps.txt ergo-balance.txt ergo-report.txt 2>/dev/null && { echo 'FAIL: a shared file'; exit 1; }
n=\$(printf '%s\\n' \"\$out\" | grep -c 'rank 0 of 4 that the launcher started (OMPI_COMM_WORLD_RANK)')
[ \"\$n\" -eq 1 ] || { echo \"FAIL: the launcher line \$n times, expected once\"; exit 1; }
n=\$(printf '%s\\n' \"\$out\" | grep -c 'one of several MPI ranks')
[ \"\$n\" -eq 0 ] || { echo \"FAIL: the old line on \$n ranks\"; exit 1; }
n=\$(printf '%s\\n' \"\$out\" | grep -c '^Total wall clock')
[ \"\$n\" -eq 0 ] || { echo \"FAIL: \$n reports printed to stdout\"; exit 1; }
n=\$(printf '%s\\n' \"\$out\" | grep -c 'each of the 4 processes wrote its own files, named by its rank: ergo-steps.rank0.txt, ergo-balance.rank0.txt, ergo-report.rank0.txt')
[ \"\$n\" -eq 1 ] || { echo \"FAIL: where the files went: said \$n times, expected once\"; exit 1; }
echo '4 processes, 4 sets of files'
" launcher ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 --allow-run-as-root --oversubscribe
    ${MPIEXEC_PREFLAGS} ${launch_timers} ${MPIEXEC_POSTFLAGS})
  file(MAKE_DIRECTORY ${launch_dir}/mpiexec)
  set_tests_properties(launcher_mpiexec_files_per_rank PROPERTIES
    WORKING_DIRECTORY ${launch_dir}/mpiexec FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "ERGO_ENERGY=none;ERGO_STATE_DIR=${launch_dir}/state;${ERGO_MPI_TEST_ENV}")
endif()

# One process of each launcher, by its variables in a plain run: the files it would write as that
# rank; rank 0 of a launch says so in one line, a rank above 0 says nothing about it; a Slurm
# batch script (SLURM_PROCID without a step) or a launch of one is no launch: plain names.
add_test(NAME launcher_env_ranks COMMAND ${ERGO_EXPECT}
  "--match=every launcher's rank named its files\n$" -- sh -c "${launch_sh}
t=\$1
run() { # VAR=VALUE... : run the program in a clean directory with exactly these launcher variables
  rm -rf run && mkdir run && cd run || exit 1
  out=\$(env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMI_SIZE -u PMIX_RANK \
    -u PMIX_SIZE -u MV2_COMM_WORLD_RANK -u MV2_COMM_WORLD_SIZE -u SLURM_PROCID -u SLURM_NTASKS \
    -u SLURM_STEP_NUM_TASKS -u SLURM_STEP_ID \"\$@\" \"\$t\" 2>&1) || { echo \"FAIL: \$*: exit code\"; exit 1; }
}
only() { # the files of one rank and no others
  n=\$(ls | grep -c 'rank')
  [ \"\$n\" -eq 3 ] || { echo \"FAIL: \$n per-rank files, expected 3\"; ls; exit 1; }
}
said() { n=\$(printf '%s\\n' \"\$out\" | grep -c \"\$1\"); [ \"\$n\" -eq \"\$2\" ] || { echo \"FAIL: '\$1' said \$n times, expected \$2\"; printf '%s\\n' \"\$out\"; exit 1; }; }
run PMI_RANK=2 PMI_SIZE=4; rank_files 2 4; only; said 'launcher started' 0; cd ..
run PMI_RANK=0 PMI_SIZE=3; rank_files 0 3; only; said 'rank 0 of 3 that the launcher started (PMI_RANK)' 1; cd ..
run SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=8; rank_files 1 2; only; cd ..
run SLURM_PROCID=3 SLURM_STEP_ID=0 SLURM_NTASKS=4; rank_files 3 4; only; cd ..
run PMIX_RANK=2 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=4; rank_files 2 4; only; cd ..
run MV2_COMM_WORLD_RANK=1 MV2_COMM_WORLD_SIZE=2; rank_files 1 2; only; cd ..
run OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1; rank_files 3 4; only; cd ..
for batch in 'SLURM_PROCID=0 SLURM_NTASKS=4' 'OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=1' 'PMI_RANK=5 PMI_SIZE=4'; do
  run \$batch
  [ -f ergo-steps.txt ] && [ -f ergo-balance.txt ] || { echo \"FAIL: \$batch: no plain files\"; ls; exit 1; }
  ls | grep rank && { echo \"FAIL: \$batch: per-rank files\"; exit 1; }
  said 'launcher started' 0
  cd ..
done
echo \"every launcher's rank named its files\"
" launcher-env ${launch_timers})
file(MAKE_DIRECTORY ${launch_dir}/env)
set_tests_properties(launcher_env_ranks PROPERTIES WORKING_DIRECTORY ${launch_dir}/env
  FAIL_REGULAR_EXPRESSION "FAIL:"
  ENVIRONMENT "ERGO_ENERGY=none;ERGO_REPORT=stdout;ERGO_STATE_DIR=${launch_dir}/state")

# The tuning model of such processes: online under a launcher writes <model>.rankN, one per
# process (no process overwrites another's model, and the shared name stays untouched); static
# then reads each process's own model, and the shared one where no per-rank model exists.  The
# program tunes a region on the sim node (tests/apps/tune_cases.c): a run that tunes none writes no
# model.
if(TARGET ergo-example-miniapp)
  add_test(NAME launcher_model_per_rank COMMAND ${ERGO_EXPECT}
    "--match=each process tuned with its own model\n$" -- sh -c "
app=\$1
rm -rf run && mkdir run && cd run || exit 1
clean='env -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u SLURM_PROCID -u PMIX_RANK -u MV2_COMM_WORLD_RANK'
for r in 0 1; do
  \$clean PMI_RANK=\$r PMI_SIZE=2 ERGO_POLICY=online ERGO_MODEL=m.json \"\$app\" --steps 45 >out.\$r 2>&1 ||
    { cat out.\$r; echo \"FAIL: online as rank \$r: exit code\"; exit 1; }
  [ -s m.rank\$r.json ] || { cat out.\$r; ls; echo \"FAIL: rank \$r wrote no m.rank\$r.json\"; exit 1; }
done
[ -e m.json ] && { echo 'FAIL: a process wrote the shared m.json'; exit 1; }
cp m.rank1.json m.json && rm m.rank1.json && echo 'not a model' >m.rank0.json
for r in 0 1; do
  \$clean PMI_RANK=\$r PMI_SIZE=2 ERGO_POLICY=static ERGO_MODEL=m.json \"\$app\" >st.\$r 2>&1
done
grep -q \"m.rank0.json\" st.0 || { cat st.0; echo 'FAIL: rank 0 did not read m.rank0.json'; exit 1; }
grep -q \"m.rank1.json\" st.1 && { cat st.1; echo 'FAIL: rank 1 named an m.rank1.json that does not exist'; exit 1; }
grep -q \"m.json\" st.1 || { cat st.1; echo 'FAIL: rank 1 did not read the shared m.json'; exit 1; }
echo 'each process tuned with its own model'
" launcher-model $<TARGET_FILE:ergo-test-tune-cases>)
  file(MAKE_DIRECTORY ${launch_dir}/model)
  set_tests_properties(launcher_model_per_rank PROPERTIES WORKING_DIRECTORY ${launch_dir}/model
    FAIL_REGULAR_EXPRESSION "FAIL:"
    ENVIRONMENT "ERGO_PLATFORM=sim;ERGO_REPORT=none;ERGO_STATE_DIR=${launch_dir}/state")
endif()
