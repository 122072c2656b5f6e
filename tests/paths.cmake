# paths.cmake - output paths as a user meets them: an unwritable report is said at ergo_init,
# never claimed written, and goes to the fallback in $TMPDIR at finalize; so does the tuning model.
if(TARGET ergo-example-miniapp)
  add_test(NAME paths_unwritable_report COMMAND ${ERGO_EXPECT} --rc=1 "--match=paths: said at start\n" -- sh -c [=[
app=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || { echo "FAIL: cannot make $dir"; exit 1; }
err=$(TMPDIR="$dir" ERGO_REPORT_CSV=/nonexistent/r.csv ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$app" --steps 2 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err"
first=$(printf '%s\n' "$err" | grep -m1 -n 'r\.csv')
[ "$first" = "1:ergo: warning: ERGO_REPORT_CSV='/nonexistent/r.csv' cannot be written: directory '/nonexistent' does not exist; the run goes on (fix: create the directory or set ERGO_REPORT_CSV to a writable path)" ] || { echo "FAIL: the first line about r.csv is not the warning at start: $first"; exit 1; }
! printf '%s\n' "$err" | grep -q '^ergo: CSV report in /nonexistent' || { echo "FAIL: claims the report was written"; exit 1; }
printf '%s\n' "$err" | grep -q "^ergo: CSV report in $dir/ergo-[0-9]*-r\.csv instead ('/nonexistent/r\.csv' could not be written)\$" || { echo "FAIL: the fallback is not named"; exit 1; }
grep -q '^0,Global,Global,' "$dir"/ergo-*-r.csv || { echo "FAIL: no CSV in the fallback"; exit 1; }
echo "paths: said at start"
exit $rc
]=] paths $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/paths_unwritable)
  # The model's write error is ergo_finalize's (the mini-app exits 1), as a report's is, and its
  # line gives the cause (not "input/output error"); /proc, which root's access() passes, is said
  # at start too.  Before, finalize returned 0 and /proc was said only at the end.
  add_test(NAME paths_unwritable_model COMMAND ${ERGO_EXPECT} --rc=1 "--match=paths: model kept\n" -- sh -c [=[
app=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || { echo "FAIL: cannot make $dir"; exit 1; }
for model in /nonexistent/m.json /proc/m.json; do
rm -f "$dir"/ergo-*-m.json
err=$(TMPDIR="$dir" ERGO_PLATFORM=sim ERGO_POLICY=online ERGO_MODEL=$model ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$app" --steps 2 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err"
[ $rc = 1 ] || { echo "FAIL: $model: exit status $rc, not 1 (ergo_finalize's error)"; exit 1; }
printf '%s\n' "$err" | head -n 1 | grep -q "^ergo: warning: ERGO_MODEL='$model' cannot be written: " || { echo "FAIL: $model: not said at start"; exit 1; }
printf '%s\n' "$err" | grep -qx "ergo: error: cannot write '$model': No such file or directory (fix: make its directory writable or choose another path)" || { echo "FAIL: $model: the cause is not said"; exit 1; }
! printf '%s\n' "$err" | grep -q "input/output error" || { echo "FAIL: $model: a wrong cause is said"; exit 1; }
printf '%s\n' "$err" | grep -q "^ergo: tuning model in $dir/ergo-[0-9]*-m\.json instead " || { echo "FAIL: $model: the fallback is not named"; exit 1; }
grep -q '"format": "ergo-model"' "$dir"/ergo-*-m.json || { echo "FAIL: $model: no model in the fallback"; exit 1; }
done
echo "paths: model kept"
exit $rc
]=] paths $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/paths_unwritable_model)
  # As root in a directory user nobody owns, where nobody planted links (and a hard link) at
  # every output name: no file outside that directory changes, each refusal is one line, and the
  # reports and the model go to their fallbacks in $TMPDIR instead.
  add_test(NAME paths_planted_links COMMAND ${ERGO_EXPECT} --rc=1 "--match=paths: no link followed\n" -- sh -c [=[
app=$1 dir=$2
[ "$(id -u)" = 0 ] || { echo "SKIPPED: not root: the attack is a root run in a directory another user writes"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIPPED: no setpriv to plant the links as user nobody"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir/shared" "$dir/tmp" && chmod 755 "$dir" && chown 65534:65534 "$dir/shared" || { echo "FAIL: cannot make $dir"; exit 1; }
cd "$dir" || exit 1
for f in steps balance report json csv model; do printf 'precious\n' >"victim-$f" && chmod 600 "victim-$f"; done
ln victim-balance shared/hard 2>/dev/null # nobody cannot link root's file: root made this one
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_nobody sh -c 'cd shared && ln -s ../victim-steps ergo-steps.txt && ln -s ../victim-report report.txt &&
  ln -s ../victim-json r.json && ln -s ../victim-csv r.csv && ln -s ../victim-model ergo-model.json' ||
  { echo "SKIPPED: setpriv cannot run as user nobody here"; exit 77; }
mv shared/hard shared/ergo-balance.txt || exit 1
err=$(cd shared && TMPDIR="$dir/tmp" ERGO_STATE_DIR="$dir/state" ERGO_PLATFORM=sim ERGO_POLICY=online ERGO_REPORT=report.txt ERGO_REPORT_JSON=r.json ERGO_REPORT_CSV=r.csv "$app" --steps 2 2>&1 >/dev/null)
rc=$?
printf '%s\n' "$err"
for f in steps balance report json csv model; do
  [ "$(cat "victim-$f")" = precious ] || { echo "FAIL: victim-$f was written through a planted link"; exit 1; }
  [ "$(stat -c %a "victim-$f")" = 600 ] || { echo "FAIL: victim-$f changed mode"; exit 1; }
done
for l in ergo-steps.txt report.txt r.json r.csv ergo-model.json; do
  [ -L "shared/$l" ] || { echo "FAIL: the link shared/$l was replaced"; exit 1; }
done
printf '%s\n' "$err" | grep -qx "ergo: error: ergo_step: cannot open 'ergo-steps.txt': it is a symbolic link, which ergo never writes through; this step's figures stay in the run's totals (fix: remove it, make the directory writable or set another path)" || { echo "FAIL: the step file's link is not said"; exit 1; }
printf '%s\n' "$err" | grep -qx "ergo: error: ergo_step: cannot open 'ergo-balance.txt': it has 2 hard links: another name may be a file ergo must not change; this step's figures stay in the run's totals (fix: remove it, make the directory writable or set another path)" || { echo "FAIL: the balance file's hard link is not said"; exit 1; }
printf '%s\n' "$err" | grep -qx "ergo: error: cannot write 'r.json': it is a symbolic link, which ergo never writes through (fix: remove it or choose another path)" || { echo "FAIL: the JSON report's link is not said"; exit 1; }
ls "$dir"/tmp/ergo-*-r.json "$dir"/tmp/ergo-*-r.csv "$dir"/tmp/ergo-*-report.txt "$dir"/tmp/ergo-*-ergo-model.json >/dev/null || { echo "FAIL: a report or the model is lost, not in its fallback"; exit 1; }
echo "paths: no link followed"
exit $rc
]=] paths $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/paths_planted_links)
  # The mini-app is an MPI program: Open MPI's own leaks are not ergo's (ERGO_MPI_TEST_ENV).
  set_tests_properties(paths_planted_links PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "${ERGO_MPI_TEST_ENV}")
endif()
