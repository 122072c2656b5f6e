# tools.cmake - ctests of the `ergo` command, on this machine and on a fake RAPL machine
# (ergo-fakesys-run), plus the runner itself.
add_executable(ergo-fakesys-run ${CMAKE_CURRENT_SOURCE_DIR}/harness/fakesys_run.c)
target_link_libraries(ergo-fakesys-run PRIVATE ergo_fakesys)
add_executable(ergo-fakesys-readloop ${CMAKE_CURRENT_SOURCE_DIR}/harness/read_loop.c)

set(ERGO_UNDER_RAPL $<TARGET_FILE:ergo-fakesys-run>)
set(ERGO_CLI $<TARGET_FILE:ergo-cli>)

# This machine, whatever it has: every source gets a line, in auto's order, then auto's verdict.
add_test(NAME tool_info_vm COMMAND ${ERGO_EXPECT}
  "--match=Topology.*packages +[1-9].*this process may use CPUs [0-9].*Energy sources:\n  powercap +(un)?available: [^\n]+\n.*  perf +(un)?available: .*  papi +(un)?available: .*  estimate +available \\(ESTIMATE\\): cpu-estimate \\(never wraps\\)\nauto( would use: (powercap|perf|papi)|: no energy meter. ergo measures time only)"
  "--match=\nWork counter \\(ERGO_WORK=instructions; not on by default\\):\n  instructions (available: instructions retired in user space, every thread \\(perf\\)|unavailable: [^\n]*fix: [^\n]*)\nKnobs:\n"
  -- ${ERGO_CLI} info)

# A RAPL node: the powercap meter finds package-0 and dram-0 with the kernel's ranges, and auto
# picks it.
add_test(NAME tool_info_harness COMMAND ${ERGO_EXPECT}
  "--match=  powercap +available: package-0 \\(range 262143\\.328850 J\\)\n +dram-0 \\(range 65712\\.999613 J\\)\n.*auto would use: powercap\n"
  -- ${ERGO_UNDER_RAPL} -- ${ERGO_CLI} info)
set_tests_properties(tool_info_harness PROPERTIES SKIP_RETURN_CODE 77)

# No RAPL at all: the reason says so.
add_test(NAME tool_info_no_rapl COMMAND ${ERGO_EXPECT}
  "--match=  powercap +unavailable: no /sys/class/powercap: "
  -- ${ERGO_UNDER_RAPL} --rapl=none -- ${ERGO_CLI} info)
set_tests_properties(tool_info_no_rapl PROPERTIES SKIP_RETURN_CODE 77)

# RAPL present but energy_uj root-only (Linux >= 5.10) for an ordinary user: say so, never crash.
add_test(NAME tool_info_denied COMMAND ${ERGO_EXPECT}
  "--match=  powercap +unavailable: /sys/class/powercap/intel-rapl:0/energy_uj is readable by root only since Linux 5\\.10"
  -- ${ERGO_UNDER_RAPL} --rapl=denied -- ${ERGO_CLI} info)
set_tests_properties(tool_info_denied PROPERTIES SKIP_RETURN_CODE 77)

# --json is one parseable document with the topology and the energy sources.
add_test(NAME tool_info_json COMMAND ${ERGO_EXPECT}
  "--json=energy/auto=powercap|energy/sources/0/name=powercap|energy/sources/0/available=ON|energy/sources/0/domains/0/name=package-0|energy/sources/0/domains/1/name=dram-0|energy/sources/3/label=ESTIMATE|energy/work_counter/name=instructions|energy/work_counter/available|topology/pus|topology/allowed_cpus"
  "--match=\"max_range_j\": 262143\\.32885\n"
  -- ${ERGO_UNDER_RAPL} -- ${ERGO_CLI} info --json)
set_tests_properties(tool_info_json PROPERTIES SKIP_RETURN_CODE 77)

# Usage errors: one line naming the bad word and listing what is accepted, exit code 2.
add_test(NAME tool_bad_command COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo: unknown command 'bogus': expected info, run, compare, sweep, restore, demo, report, --help or --version\n$"
  -- ${ERGO_CLI} bogus)
add_test(NAME tool_bad_option COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo: unknown option '--bogus': expected info, run, compare, sweep, restore, demo, report, --help or --version\n$"
  -- ${ERGO_CLI} --bogus)
add_test(NAME tool_info_bad_option COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo info: unknown option '--jsn': expected --json or --help\n$"
  -- ${ERGO_CLI} info --jsn)
add_test(NAME tool_no_command COMMAND ${ERGO_EXPECT} --rc=2
  "--match=^ergo: no command given: expected info, run, compare, sweep, restore, demo, report, --help or --version\n$"
  -- ${ERGO_CLI})
add_test(NAME tool_version COMMAND ${ERGO_EXPECT} "--match=^ergo ${PROJECT_VERSION}\n$"
  -- ${ERGO_CLI} --version)
add_test(NAME tool_help COMMAND ${ERGO_EXPECT} "--match=usage: ergo <command>.*\n  info +"
  -- ${ERGO_CLI} --help)
# Output that cannot be written (a full disk: /dev/full): one line naming the error, exit status
# 1, for every command that prints (checked once, in main).
foreach(args "info" "info --json" "--version" "restore --help")
  string(REPLACE " " "_" name "${args}")
  string(REPLACE "-" "" name "${name}")
  set(cmd "ergo")
  if(NOT args MATCHES "^--")
    string(REGEX REPLACE " .*" "" word "${args}")
    set(cmd "ergo ${word}")
  endif()
  add_test(NAME tool_output_full_${name} COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^${cmd}: cannot write the output to standard output: No space left on device \\(fix: free space where it goes, or redirect it to another file\\)\n$"
    -- sh -c "\"$0\" ${args} > /dev/full" ${ERGO_CLI})
endforeach()

# The runner plays the hardware: the package counter moves while the command runs, and wraps to
# 0 after max_energy_range_uj (25 periods after the start here).
add_test(NAME fakesys_run_counts COMMAND ${ERGO_EXPECT} "--match=^[0-9]+ [0-9]+\n$"
  -- ${ERGO_UNDER_RAPL} --energy-step-uj=1000 -- sh -c
  "f=/sys/class/powercap/intel-rapl:0/energy_uj; a=$(cat $f); i=0; while [ $i -lt 1000 ]; do b=$(cat $f); if [ $b -gt $a ]; then echo $a $b; exit 0; fi; sleep 0.01; i=$((i+1)); done; echo no change: $a $b; exit 1")
# Waits (up to 10 s, not a timing assertion) until the counter reads below its start, which only
# a wrap can do: on a loaded machine the 25 periods may be over before the first read.
add_test(NAME fakesys_run_wraps COMMAND ${ERGO_EXPECT} "--match=^wrapped: [0-9]+\n$"
  -- ${ERGO_UNDER_RAPL} --start-uj=262143303850 --energy-step-uj=1000 -- sh -c
  "f=/sys/class/powercap/intel-rapl:0/energy_uj; i=0; while [ $i -lt 1000 ]; do b=$(cat $f); if [ $b -lt 262143303850 ]; then echo wrapped: $b; exit 0; fi; sleep 0.01; i=$((i+1)); done; echo no wrap: $b; exit 1")
# The counters are written whole: 2 M reads (some seconds) from the start at 0, while the
# package counter grows through 6, 7, 8 and 9 digits, find no read empty, cut short or without its
# newline.  Writing the value at its own length, the runner let 2 of 3 such runs see 1-3.
add_test(NAME fakesys_run_reads_whole COMMAND ${ERGO_EXPECT}
  "--match=^2000000 reads, 0 unreadable, [1-9][0-9]* changes seen\n$"
  -- ${ERGO_UNDER_RAPL} -- $<TARGET_FILE:ergo-fakesys-readloop>
    /sys/class/powercap/intel-rapl:0/energy_uj 2000000)
add_test(NAME fakesys_run_status COMMAND ${ERGO_EXPECT} --rc=3
  -- ${ERGO_UNDER_RAPL} -- sh -c "exit 3")
set_tests_properties(fakesys_run_counts fakesys_run_wraps fakesys_run_reads_whole fakesys_run_status PROPERTIES
  SKIP_RETURN_CODE 77)
