#!/bin/sh
# knob_names_one_file.sh SRC - the knobs' names are written in one file, knobs/table.c: fails
# (naming file:line) when a string literal "cpu", "cpufreq", "uncore", "uncore_khz", "core_khz"
# or "threads" appears anywhere else in the library's and the tool's sources.  Comments are not
# literals and are skipped.  Allowed, because they are other vocabularies that share a word:
#   "threads" in core/report_json.c, tools/compare.c, tools/sweep_runs.c, tools/demo.c: the JSON
#             report's list of thread trees (written, compared, read back), not the knob;
#   "uncore"  in energy/papi.c: a RAPL energy domain's kind as PAPI names it, not the knob.
set -u
src=${1:?usage: knob_names_one_file.sh SOURCE_DIR}
cd "$src" || exit 2
[ -f knobs/table.c ] || { echo "FAIL: $src/knobs/table.c not found"; exit 2; }
files=$(find core energy knobs sim optimizer policies mpi runtime util tools \
  -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort)
[ -n "$files" ] || { echo "FAIL: no sources found under $src"; exit 2; }
# shellcheck disable=SC2086 # one word per file: the paths have no spaces
awk '
BEGIN {
  split("cpu cpufreq uncore uncore_khz core_khz threads", list, " ")
  for (i in list) name[list[i]] = 1
  allow["threads", "core/report_json.c"] = 1
  allow["threads", "tools/compare.c"] = 1
  allow["threads", "tools/sweep_runs.c"] = 1
  allow["threads", "tools/demo.c"] = 1
  allow["uncore", "energy/papi.c"] = 1
  bad = 0
}
FNR == 1 { state = 0 } # 0 code, 1 block comment
{
  line = $0; n = length(line); i = 1
  while (i <= n) {
    c = substr(line, i, 1); c2 = substr(line, i, 2)
    if (state == 1) {
      if (c2 == "*/") { state = 0; i += 2 } else i++
      continue
    }
    if (c2 == "/*") { state = 1; i += 2; continue }
    if (c2 == "//") break
    if (c == "\047") { # a character literal: skip it, escapes included
      i++
      while (i <= n && substr(line, i, 1) != "\047") i += substr(line, i, 1) == "\\" ? 2 : 1
      i++
      continue
    }
    if (c == "\"") { # a string literal: its text, escapes kept as written
      s = ""; i++
      while (i <= n && substr(line, i, 1) != "\"") {
        step = substr(line, i, 1) == "\\" ? 2 : 1
        s = s substr(line, i, step); i += step
      }
      i++
      if (s in name) {
        if (FILENAME == "knobs/table.c") seen[s] = 1
        else if (!((s, FILENAME) in allow)) {
          printf "%s:%d: the knob name \"%s\" is written outside knobs/table.c (read it from the knob table, knobs/table.h)\n", FILENAME, FNR, s
          bad = 1
        }
      }
      continue
    }
    i++
  }
}
END {
  # The scan itself is checked: the table must show every name to it.
  for (s in name) if (!(s in seen)) {
    printf "FAIL: \"%s\" not seen in knobs/table.c: the table or this scan is broken\n", s
    bad = 1
  }
  if (bad) print "FAIL: knob names outside the knob table"
  else print "knob names: only in knobs/table.c"
  exit bad
}' $files
