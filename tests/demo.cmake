# demo.cmake - `ergo demo`, the program of the README's first command, run exactly as there (no
# options): three real runs of the sim mini-app through `ergo run` (monitor, online writing a
# model, static applying it), the `ergo compare` table with a real energy saving, SIMULATED on
# every line that holds a figure, the next commands, and its files in ergo-demo/ only.  Named
# example_* for the ASan leak rule of tests/CMakeLists.txt (the mini-app is an MPI singleton).
if(TARGET ergo-cli AND TARGET ergo-example-miniapp)
  set(demo_dir ${CMAKE_CURRENT_BINARY_DIR}/demo)
  set(demo_num "[0-9]+\\.[0-9]+")
  add_test(NAME example_demo COMMAND ${ERGO_EXPECT}
    "--match=\n1/3 untuned: policy monitor [^\n]*\n  \\$ ergo run --policy monitor --report-json untuned\\.json \\\\\n        -- ergo-example-miniapp --steps 100 > untuned\\.txt 2>&1\n  time ${demo_num} s, energy ${demo_num} J \\[SIMULATED\\]\n"
    "--match=\n2/3 tuned online: policy online [^\n]*\n[^\n]*\n[^\n]*\n  \\$ ergo run --policy online --model model\\.json --report-json online\\.json \\\\\n        -- ergo-example-miniapp --steps 100 > online\\.txt 2>&1\n  time ${demo_num} s, energy ${demo_num} J \\[SIMULATED\\]; model\\.json holds [1-9][0-9]* regions\n"
    "--match=\n3/3 model applied: policy static [^\n]*\n[^\n]*\n  \\$ ergo run --policy static --model model\\.json --report-json static\\.json \\\\\n        -- ergo-example-miniapp --steps 100 > static\\.txt 2>&1\n  time ${demo_num} s, energy ${demo_num} J \\[SIMULATED\\]\n"
    # The table: both tuned runs save energy (at least 1 %) against the untuned one.
    "--match=\n  \\$ ergo compare untuned\\.json online\\.json static\\.json > compare\\.txt 2>&1\nEnergy to solution \\[SIMULATED\\] of 3 runs [^\n]*\n\nrun +time s +energy J +saving +time[^\n]*\nuntuned\\.json +${demo_num} +${demo_num} +ref +ref [^\n]*\\[SIMULATED\\]\nonline\\.json +${demo_num} +${demo_num} +[1-9][0-9]*\\.[0-9]+% +[-+]${demo_num}% [^\n]*\\[SIMULATED\\]\nstatic\\.json +${demo_num} +${demo_num} +[1-9][0-9]*\\.[0-9]+% +[-+]${demo_num}% [^\n]*\\[SIMULATED\\]\n"
    "--match=\nNext, with your own code:\n  1\\. annotate its main regions with ERGO_PUSH\\(level, \"name\"\\) [^\n]*\n[^\n]*\"Quick start\"[^\n]*\n  2\\. [^\n]*\n       [^\n]*/ergo run --policy online -- \\./your_app\n       [^\n]*/ergo run --policy static -- \\./your_app\n  3\\. [^\n]*\n       [^\n]*/ergo info\n"
    "--match=\ndemo: checked\n$"
    -- sh -c [=[
ergo=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || { echo "FAIL: cannot make $dir"; exit 1; }
"$ergo" demo >out.txt 2>err.txt
rc=$?
cat out.txt err.txt
[ "$rc" -eq 0 ] || { echo "FAIL: ergo demo exited with $rc"; exit 1; }
[ ! -s err.txt ] || { echo "FAIL: ergo demo wrote to stderr"; exit 1; }
# A figure is a word that is a decimal number (563.559, -6.02%, +2.87%); every line with one
# must say SIMULATED.  The check is tried on an unmarked line first, so it can fail.
unmarked() { grep -E '(^|[[:space:]])[(+-]*[0-9]+\.[0-9]' | grep -v 'SIMULATED'; }
[ -n "$(printf 'untuned.json 563.559 76399.81 ref\n' | unmarked)" ] || { echo "FAIL: the check misses an unmarked figure"; exit 1; }
bad=$(unmarked <out.txt)
[ -z "$bad" ] || { printf 'FAIL: figure lines without SIMULATED:\n%s\n' "$bad"; exit 1; }
n=$(grep -cE '(^|[[:space:]])[(+-]*[0-9]+\.[0-9]' out.txt)
[ "$n" -eq 6 ] || { echo "FAIL: $n figure lines, expected 6 (three runs, three table rows)"; exit 1; }
# Its files are in ergo-demo/ and nowhere else; the model is a model.
[ "$(LC_ALL=C ls -A | tr "\n" " ")" = "ergo-demo err.txt out.txt " ] || { echo "FAIL: files outside ergo-demo: $(ls -A)"; exit 1; }
for f in untuned online static; do
  for x in .txt .json -steps.txt -balance.txt; do
    [ -s "ergo-demo/$f$x" ] || { echo "FAIL: no ergo-demo/$f$x"; exit 1; }
  done
done
grep -q '"format": "ergo-model"' ergo-demo/model.json || { echo "FAIL: ergo-demo/model.json is not a model"; exit 1; }
grep -q '^region ' ergo-demo/compare.txt || { echo "FAIL: compare.txt has no regions' table"; exit 1; }
# With the web assets built, the runs' pictures: one page holding the three runs and the model.
if [ "$3" = 1 ]; then
  grep -q '^  \$ ergo report --html report.html untuned.json online.json static.json model.json' out.txt || { echo "FAIL: the demo does not show its ergo report command"; exit 1; }
  grep -q 'report.html written (3 runs, a model, balance lines)' ergo-demo/report.txt || { echo "FAIL: ergo report's line: $(cat ergo-demo/report.txt)"; exit 1; }
  grep -q 'SIMULATED' ergo-demo/report.html || { echo "FAIL: report.html does not say SIMULATED"; exit 1; }
fi
echo "demo: checked"
]=] sh $<TARGET_FILE:ergo-cli> ${demo_dir} $<IF:$<TARGET_EXISTS:ergo_web>,1,0>)
  set_tests_properties(example_demo PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:")

  # Its directory cannot be written (a file is in the way): one line naming it and the fix,
  # exit status 1, nothing run.
  add_test(NAME example_demo_unwritable_dir COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo demo: cannot make the directory 'ergo-demo/sub' for its files: Not a directory \\(fix: --dir DIR\\)\nergo demo: cannot put its files in 'ergo-demo': it is not a directory \\(fix: --dir DIR\\)\n$"
    -- sh -c [=[
ergo=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" && : >ergo-demo || { echo "FAIL: cannot make $dir"; exit 1; }
"$ergo" demo --dir ergo-demo/sub
rc1=$?
"$ergo" demo
rc=$?
[ "$rc1" -eq 1 ] || { echo "FAIL: --dir ergo-demo/sub exited with $rc1, expected 1"; exit 1; }
[ "$(ls -A)" = ergo-demo ] && [ ! -s ergo-demo ] || { echo "FAIL: files were written: $(ls -A)"; exit 1; }
exit $rc
]=] sh $<TARGET_FILE:ergo-cli> ${demo_dir}_unwritable)
  set_tests_properties(example_demo_unwritable_dir PROPERTIES FAIL_REGULAR_EXPRESSION "FAIL:")

  # Usage errors: one line naming the value and what is accepted, exit status 2, nothing run.
  add_test(NAME example_demo_bad_steps COMMAND ${ERGO_EXPECT} --rc=2
    "--match=^ergo demo: --steps '0' is not valid: expected an integer from 1 to 1000000\n$"
    -- $<TARGET_FILE:ergo-cli> demo --steps 0 --dir ${demo_dir}_never)
  add_test(NAME example_demo_bad_app COMMAND ${ERGO_EXPECT} --rc=1
    "--match=^ergo demo: the mini-app '/nonexistent/app' cannot be run: No such file or directory \\(it is built with ergo, as build/examples/ergo-example-miniapp, and installed in [^\n]*; fix: --app PATH\\)\n$"
    -- $<TARGET_FILE:ergo-cli> demo --app /nonexistent/app --dir ${demo_dir}_never)
endif()
