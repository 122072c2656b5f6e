# expect.cmake - expect.sh's output checks, in CMake so that regular expressions mean what
# PASS_REGULAR_EXPRESSION meant: matched over the whole output, '.' matches a newline too, '^'
# and '$' are the start and end of the output.  Run by expect.sh (not by tests directly):
#   EXPECT_OUT=file EXPECT_NMATCH=n EXPECT_MATCH_1..n=RE [EXPECT_STDOUT=file EXPECT_JSON=CHECKS]
#     cmake -P expect.cmake
# Every RE must match the output (the file EXPECT_OUT).  A JSON check
# "energy/sources/0/domains/0/name=package-0" GETs that path (numbers index arrays) in the
# document on stdout (EXPECT_STDOUT) and compares the value as a string (CMake shows true as ON
# and reprints numbers, so match numbers with a RE); a check without "=" only requires the path
# to exist.  Values come through the environment, which keeps every byte (-D would trim spaces).
cmake_minimum_required(VERSION 3.18)
file(READ "$ENV{EXPECT_OUT}" out)
set(n "$ENV{EXPECT_NMATCH}")
if(n GREATER 0)
  foreach(i RANGE 1 ${n})
    set(re "$ENV{EXPECT_MATCH_${i}}")
    if(NOT out MATCHES "${re}")
      message(FATAL_ERROR "FAIL: the output does not match: ${re}")
    endif()
  endforeach()
endif()
set(checks "$ENV{EXPECT_JSON}")
if(checks)
  file(READ "$ENV{EXPECT_STDOUT}" doc)
  string(REPLACE "|" ";" checks "${checks}")
  foreach(check ${checks})
    string(REGEX MATCH "^([^=]*)(=(.*))?$" _ "${check}")
    set(key "${CMAKE_MATCH_1}")
    set(has_want "${CMAKE_MATCH_2}")
    set(want "${CMAKE_MATCH_3}")
    string(REPLACE "/" ";" path "${key}")
    string(JSON got ERROR_VARIABLE jerr GET "${doc}" ${path})
    if(jerr)
      message(FATAL_ERROR "FAIL: JSON ${key}: ${jerr}")
    endif()
    if(has_want AND NOT got STREQUAL want)
      message(FATAL_ERROR "FAIL: JSON ${key} is '${got}', expected '${want}'")
    endif()
  endforeach()
endif()
