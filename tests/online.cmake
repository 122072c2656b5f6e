# The online policy end to end on the sim mini-app: it tunes, writes its model, and the static
# policy applies that model (with less energy than the untuned run: ergo compare says so).
if(TARGET ergo-example-miniapp AND TARGET ergo-cli)
  # static.json must save energy against monitor: a positive saving on its line
  add_test(NAME policy_online_then_static COMMAND ${ERGO_EXPECT}
    "--match=st\\.json +[0-9.]+ +[0-9.]+ +[1-9][0-9]*\\.[0-9]+%"
    -- sh -c "set -e; d=$1; mkdir -p $d; cd $d; rm -f m.json; \
ERGO_PLATFORM=sim ERGO_REPORT=none ERGO_POLICY=monitor ERGO_REPORT_JSON=mon.json $2 --steps 60 >/dev/null; \
ERGO_PLATFORM=sim ERGO_REPORT=none ERGO_POLICY=online ERGO_MODEL=m.json $2 --steps 60 >/dev/null; \
test -s m.json; \
ERGO_PLATFORM=sim ERGO_REPORT=none ERGO_POLICY=static ERGO_MODEL=m.json ERGO_REPORT_JSON=st.json $2 --steps 60 >/dev/null; \
$3 compare mon.json st.json" sh ${CMAKE_CURRENT_BINARY_DIR}/policy_online
      $<TARGET_FILE:ergo-example-miniapp> $<TARGET_FILE:ergo-cli>)
endif()
