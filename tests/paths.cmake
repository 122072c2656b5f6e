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
  add_test(NAME paths_unwritable_model COMMAND ${ERGO_EXPECT} "--match=paths: model kept\n" -- sh -c [=[
app=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || { echo "FAIL: cannot make $dir"; exit 1; }
err=$(TMPDIR="$dir" ERGO_PLATFORM=sim ERGO_POLICY=online ERGO_MODEL=/nonexistent/m.json ERGO_REPORT=none ERGO_REPORT_STEPS=none ERGO_BALANCE=none "$app" --steps 2 2>&1 >/dev/null)
printf '%s\n' "$err"
printf '%s\n' "$err" | head -n 1 | grep -q "^ergo: warning: ERGO_MODEL='/nonexistent/m.json' cannot be written: " || { echo "FAIL: not said at start"; exit 1; }
printf '%s\n' "$err" | grep -q "^ergo: tuning model in $dir/ergo-[0-9]*-m\.json instead " || { echo "FAIL: the fallback is not named"; exit 1; }
grep -q '"format": "ergo-model"' "$dir"/ergo-*-m.json || { echo "FAIL: no model in the fallback"; exit 1; }
echo "paths: model kept"
]=] paths $<TARGET_FILE:ergo-example-miniapp> ${CMAKE_CURRENT_BINARY_DIR}/paths_unwritable_model)
endif()
