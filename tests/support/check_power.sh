#!/bin/sh
# check_power.sh LO HI TEXT CSV JSON [UNACCOUNTED_MIN_S] - every power figure of one run's reports
# lies in [LO, HI] watts: the text report's "J, W W," column on every region line, the CSV's
# energy_W column on every row that has one, and every "rate" of the JSON report (Global's
# power is only in these two: the text report gives its time and energy).  The three
# writers compute it once (ergo__q_rate), so they must agree; this says where one does not.
# An Unaccounted line shorter than UNACCOUNTED_MIN_S seconds (default 0: none skipped) is left
# out: a few ms between regions are within a counter's step of any power (README, Energy).
# Prints "power: N text, N csv, N json figures in [LO, HI] W"; exit 1 with FAIL: lines else.
lo=$1 hi=$2 text=$3 csv=$4 json=$5 umin=${6:-0}
awk -v lo="$lo" -v hi="$hi" -v text="$text" -v csv="$csv" -v json="$json" -v umin="$umin" '
  function check(w, where) {
    if (w + 0 < lo + 0 || w + 0 > hi + 0) { print "FAIL: " w " W outside [" lo ", " hi "]: " where; bad = 1 }
  }
  FILENAME == text && /^Total energy for Global = [0-9.]+ J/ { nr++; next } # Global: no W in text
  FILENAME == text && / J, [0-9.]+ W, / {
    if ($0 ~ /\* Unaccounted / && match($0, /: [0-9.]+ sec/) && substr($0, RSTART + 2, RLENGTH - 6) + 0 < umin + 0) next
    match($0, / J, [0-9.]+ W, /); check(substr($0, RSTART + 4, RLENGTH - 8), $0); nt++
    if ($0 !~ /\* Unaccounted /) nr++
    next
  }
  FILENAME == csv && FNR == 1 { n = split($0, h, ","); for (i = 1; i <= n; i++) if (h[i] == "energy_W") col = i; next }
  FILENAME == csv { split($0, f, ","); if (col && f[col] != "") { check(f[col], "csv " $0); nc++ }; next }
  FILENAME == json && /"rate": / { v = $0; sub(/.*"rate": /, "", v); sub(/,$/, "", v); check(v, "json " $0); nj++ }
  END {
    if (!nt || !nc || !nj) { print "FAIL: no power figures (" nt + 0 " text, " nc + 0 " csv, " nj + 0 " json)"; exit 1 }
    if (nr != nc || nc != nj) { print "FAIL: " nr " text regions, " nc " csv and " nj " json power figures differ in number"; bad = 1 }
    if (!bad) print "power: " nt " text, " nc " csv, " nj " json figures in [" lo ", " hi "] W"
    exit bad
  }' "$text" "$csv" "$json"
