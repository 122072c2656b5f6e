# bench_tuning.cmake - ergo-bench-tuning's output format (issue 14, item 6), on one profile in
# --quick mode: the SIMULATED label, the header, one row per objective (--quick: energy@5% and time),
# the line of targets met (how many of the rows each applies to; nested-noisy has 5 % noise) and the
# summary line.
# Figures are never asserted: a benchmark prints them, it does not judge them.
# Only where the benchmarks are built (ERGO_BUILD_BENCH; the fuzz build leaves them out).
if(ERGO_BUILD_BENCH)
set(bt_num "[0-9]+\\.[0-9]+")
add_test(NAME bench_tuning_quick_format COMMAND ${ERGO_EXPECT}
  "--match=(^|\n)SIMULATED [^\n]*\nprofile +node +objective +seeds +st/or +on/or +st/mon +on/mon +ont/mon +unit_t +onrunE +onrunT +swrunE +swrunT +on_ex +sw_ex +overhead\n"
  "--match=\nnested-noisy +default-20c +energy@5% +2 +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +[0-9]+ +[0-9]+ +${bt_num}%\n"
  "--match=\nnested-noisy +default-20c +time +2 +${bt_num} +${bt_num} +${bt_num} +${bt_num} +${bt_num} +- +"
  "--match=\ntargets_met static_exact_within_1pct=0/0 static_noise5_within_3pct=[0-2]/2 online_exact_within_3pct=0/0 online_noise5_within_5pct=[0-2]/2 final_energy_within_1pct_of_monitor=[0-2]/2 unit_time_within_1.06=[01]/1 run_time_within_1\\+X=[01]/1 tuning_run_within_budget=[0-2]/2 retuned_within_5pct_of_new_oracle=0/0\n"
  "--match=\nworst_static_vs_oracle=${bt_num} worst_online_vs_oracle=${bt_num} worst_online_vs_monitor=${bt_num} worst_unit_slowdown_energy5=${bt_num} worst_tuning_run_energy_vs_monitor=${bt_num} worst_tuning_run_time_vs_monitor=${bt_num} max_overhead=${bt_num}\n$"
  -- $<TARGET_FILE:ergo-bench-tuning> --quick --profile nested-noisy)
# A profile whose work changes (`phase`: `solve` turns memory-bound halfway) has rows for the
# target its re-tuned region is judged by (against the oracle of its new work); BENCH_SEEDS=1
# prints each seed's figure, `changed/or=`, on stderr.
add_test(NAME bench_tuning_quick_changed COMMAND ${ERGO_EXPECT}
  "--match=\nseed phase-noisy default-20c energy@5% 1 st/or=${bt_num} on/or=${bt_num} unit_t=${bt_num} onrunE=${bt_num} onrunT=${bt_num} changed/or=${bt_num} \\(sweep ${bt_num}, online ${bt_num}\\)\n"
  "--match=\ntargets_met [^\n]* tuning_run_within_budget=[0-2]/2 retuned_within_5pct_of_new_oracle=[0-2]/2\n"
  -- env BENCH_SEEDS=1 $<TARGET_FILE:ergo-bench-tuning> --quick --profile phase-noisy)
# A wrong argument: one line naming it and what is accepted, status 2.
add_test(NAME bench_tuning_bad_argument COMMAND ${ERGO_EXPECT} --rc=2
  "--match=ergo-bench-tuning: unknown argument '--fast': expected --quick, --profile NAME, --node NAME, --objective OBJ or --no-counter\n"
  -- $<TARGET_FILE:ergo-bench-tuning> --fast)
# The other node descriptions (sim/nodes/*.json) load and run: one row each, format only.
add_test(NAME bench_tuning_quick_nodes COMMAND ${ERGO_EXPECT}
  "--match=\nonce +many-core-64c +energy@5% +1 +${bt_num} +${bt_num}"
  "--match=\nonce +small-8c +energy@5% +1 +${bt_num} +${bt_num}"
  -- $<TARGET_FILE:ergo-bench-tuning> --quick --profile once --node c --objective energy@5%)
# Nodes without a work counter (--no-counter): said on the first line, the rows still there.
add_test(NAME bench_tuning_quick_no_counter COMMAND ${ERGO_EXPECT}
  "--match=(^|\n)SIMULATED \\(sim node without a work counter;"
  "--match=\nonce +many-core-64c +energy@5% +1 +${bt_num} +${bt_num}"
  -- $<TARGET_FILE:ergo-bench-tuning> --quick --profile once --node many --objective energy@5%
    --no-counter)
endif()
# ergo-bench-tuning-random: random programs and nodes run and end with the summary line (figures
# and failure counts are never asserted: the bench prints them); a wrong argument says so.
if(ERGO_BUILD_BENCH)
add_test(NAME bench_tuning_random_smoke COMMAND ${ERGO_EXPECT}
  "--match=(^|\n)SIMULATED [^\n]*random programs[^\n]*\n"
  "--match=\nrandom_programs=3 failing_programs=[0-3] failures=[0-9]+ final=[0-9]+ unit_time=[0-9]+ run_time=[0-9]+ cost=[0-9]+ bounded_programs=[0-3] worst_static_vs_monitor=${bt_num} worst_online_vs_monitor=${bt_num} worst_unit_time_vs_bound=${bt_num} worst_run_time_vs_bound=${bt_num} worst_tuning_run_energy_vs_monitor=${bt_num} worst_tuning_run_time_vs_monitor=${bt_num} worst_static_vs_oracle=${bt_num} worst_online_vs_oracle=${bt_num} empty_programs=0\n$"
  -- $<TARGET_FILE:ergo-bench-tuning-random> --random 3 --seed 1)
# A program with no work at all (random program 2047: its one region a wrapper) is named and
# counted apart, never judged on ratios of nothing.
add_test(NAME bench_tuning_random_empty COMMAND ${ERGO_EXPECT}
  "--match=\ncase seed=2047 regions=1: no work at the baseline \\(monitor's run took 0 s\\), nothing to compare\n"
  "--match=\nrandom_programs=1 failing_programs=0 failures=0 [^\n]* empty_programs=1\n$"
  -- $<TARGET_FILE:ergo-bench-tuning-random> --random 1 --seed 2047 --verbose)
# bench/random_table.sh: the README's table of random programs, here on one program per range
# (figures never asserted); a bench that is not there says so.
add_test(NAME bench_tuning_random_table COMMAND ${ERGO_EXPECT}
  "--match=(^|\n)SIMULATED \\(sim node; 1 random programs per range, from [^\n]*\\)\n"
  "--match=\ntraced, with counter +programs 4 \\(empty 0\\), failing [0-4] \\(final/unit_time/run_time/cost [0-9]+/[0-9]+/[0-9]+/[0-9]+\\)\n +online/oracle ${bt_num} +static/oracle ${bt_num} +tuning run energy ${bt_num} time ${bt_num} \\(geometric means\\)\n +worst final/monitor static ${bt_num} online ${bt_num}; worst unit time/\\(1\\+X\\) ${bt_num}\n"
  "--match=\ntraced, without +programs 4 "
  "--match=\nheld out, with +programs 4 "
  "--match=\nheld out, without +programs 4 "
  -- env RANDOM_N=1 bash ${PROJECT_SOURCE_DIR}/bench/random_table.sh
    $<TARGET_FILE:ergo-bench-tuning-random> ${CMAKE_CURRENT_BINARY_DIR}/random-table)
add_test(NAME bench_tuning_random_table_no_bench COMMAND ${ERGO_EXPECT} --rc=2
  "--match=random_table.sh: '/nonexistent/bench' is not an executable \\(fix: "
  -- bash ${PROJECT_SOURCE_DIR}/bench/random_table.sh /nonexistent/bench)
# Nodes without a work counter (as ergo's real nodes): a region called at several sizes per step
# is split into units PATH#n, and the bench judges each unit's own setting on its own call.
add_test(NAME bench_tuning_random_no_counter COMMAND ${ERGO_EXPECT}
  "--match=(^|\n)SIMULATED [^\n]*random programs and nodes without a work counter[^\n]*\n"
  "--match=ran 5 times in a step at different sizes [^\n]*no measure of its work: each call of a step is tuned as its own unit, 'Global/r0#1' to 'Global/r0#5'"
  "--match=\nunit sweep Global/r0#5 t=[0-9.]+ e=[0-9.]+\n"
  "--match=\nunit online Global/r0#[1-5] t=[0-9.]+ e=[0-9.]+\n"
  "--match=\nrandom_programs=1 failing_programs=[01] "
  -- env BENCH_UNITS=1 $<TARGET_FILE:ergo-bench-tuning-random> --random 1 --seed 3 --no-counter --verbose)
# A region run once whose judgement was skipped while regions inside it were still being judged
# (random program 94: 'Global/r2' at the first step) is said to have run once, not to have run
# under a tuned region with nothing measuring its work (the counter measured it).
add_test(NAME bench_tuning_random_once_not_judged COMMAND ${ERGO_EXPECT}
  "--match=ergo: 1 region not judged, so not tuned: it ran once, while regions inside it were still being judged: 'Global/r2'\n"
  -- $<TARGET_FILE:ergo-bench-tuning-random> --random 1 --seed 94)
set_tests_properties(bench_tuning_random_once_not_judged PROPERTIES FAIL_REGULAR_EXPRESSION
  "nothing measures its work[^\n]*'Global/r2'")
# One program whose failure a rule fixed, judged on that alone (its final choice, not a figure):
# random program 1230 under `time` at 5.8 % noise, where sweep's smoothed estimate chose a config
# its own 8 measurements put 2.5 % slower than the baseline (the static run at 1.015x monitor's
# time): a winner's own measurements must not be worse than the baseline's (optimizer/sweep.c).
add_test(NAME bench_tuning_random_own_measurements COMMAND ${ERGO_EXPECT}
  "--match=\nrandom_programs=1 failing_programs=[01] failures=[0-9]+ final=0 "
  -- $<TARGET_FILE:ergo-bench-tuning-random> --random 1 --seed 1230)
add_test(NAME bench_tuning_random_bad_argument COMMAND ${ERGO_EXPECT} --rc=2
  "--match=ergo-bench-tuning-random: unknown argument '--fast': expected --random N, --seed S, --no-counter or --verbose\n"
  -- $<TARGET_FILE:ergo-bench-tuning-random> --fast)
endif()
