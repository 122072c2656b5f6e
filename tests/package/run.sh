#!/bin/sh
# run.sh - install a built ergo into a scratch prefix and use it from outside:
# find_package(ergo) with ergo::ergo and ergo::ergo_static, then pkg-config; with MPI, the MPI
# consumers too (ergo::ergo_mpi, ergo::ergo_mpi_static, pkg-config ergo-mpi) under mpiexec.
# usage: run.sh BUILD_DIR CONSUMER_SRC WORK_DIR CMAKE CC [EXTRA_CFLAGS [MPIEXEC MPICC]]
set -eu
build=$1 src=$2 work=$3 cmake=$4 cc=$5 extra=${6:-} mpiexec=${7:-} mpicc=${8:-}
prefix=$work/prefix

# The consumer checks the default report, so the caller's ERGO_* settings must not leak in.
for v in $(env | sed -n 's/^\(ERGO_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

step() { printf '\n== package test: %s\n' "$*"; }
# The report must show the consumer's regions and the consumer must say ok.
check_output() {
  out=$1
  for want in package_outer package_a package_b "consumer: ergo .* ok"; do
    if ! grep -q "$want" "$out"; then
      echo "FAIL: '$want' missing from the output of $2:"
      cat "$out"
      exit 1
    fi
  done
}

rm -rf "$work"
mkdir -p "$work"

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; exit 1; }
libdir=$(dirname "$(find "$prefix" -name 'libergo.so' | head -n 1)")
for f in "$prefix/include/ergo.h" "$prefix/include/ergo_sim.h" "$libdir/libergo.a" \
  "$libdir/pkgconfig/ergo.pc" "$libdir/cmake/ergo/ergoConfig.cmake" \
  "$libdir/cmake/ergo/ergoConfigVersion.cmake"; do
  [ -f "$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
done

step "libergo has no MPI dependency; libergo-mpi has MPI and not libergo"
# A serial program must load no MPI (a site's other MPI would clash): MPI lives in libergo-mpi.
if ldd "$libdir/libergo.so" | grep -Ei 'libmpi|libopen-(pal|rte)|libpmix'; then
  echo "FAIL: the installed libergo.so needs an MPI library (above)"; exit 1
fi
if [ -n "$mpiexec" ]; then
  for f in "$libdir/libergo-mpi.so" "$libdir/libergo-mpi.a" "$libdir/pkgconfig/ergo-mpi.pc" \
    "$libdir/cmake/ergo/ergoMpiTargets.cmake"; do
    [ -f "$f" ] || { echo "FAIL: $f was not installed"; exit 1; }
  done
  needed=$(readelf -d "$libdir/libergo-mpi.so" | grep NEEDED)
  echo "$needed" | grep -q 'libmpi' || { echo "FAIL: libergo-mpi.so needs no MPI:"; echo "$needed"; exit 1; }
  if echo "$needed" | grep -q 'libergo'; then
    echo "FAIL: libergo-mpi.so needs libergo:"; echo "$needed"; exit 1
  fi
fi

step "run the installed $prefix/bin/ergo without LD_LIBRARY_PATH"
# Its RUNPATH must find every library it needs (libergo's own through \$ORIGIN/../lib).
if ! env -u LD_LIBRARY_PATH "$prefix/bin/ergo" --version >"$work/cli.out" 2>&1; then
  echo "FAIL: the installed bin/ergo cannot start:"; cat "$work/cli.out"
  readelf -d "$prefix/bin/ergo" | grep -E 'NEEDED|RPATH|RUNPATH'
  exit 1
fi
grep -q '^ergo ' "$work/cli.out" || { echo "FAIL: bin/ergo --version:"; cat "$work/cli.out"; exit 1; }
for so in "$libdir"/libergo*.so; do
  if env -u LD_LIBRARY_PATH ldd "$so" | grep 'not found'; then
    echo "FAIL: $so has a library it cannot find once installed"; exit 1
  fi
done

step "run the installed ergo demo (its mini-app installed beside it)"
# Open MPI leaks at exit even as a singleton: a sanitized build checks all but leaks here.
if ! env -u LD_LIBRARY_PATH ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  "$prefix/bin/ergo" demo --dir "$work/demo" >"$work/demo.out" 2>&1; then
  echo "FAIL: the installed ergo demo failed:"; cat "$work/demo.out"; exit 1
fi
grep -q '^static\.json .*\[SIMULATED\]$' "$work/demo.out" || { echo "FAIL: ergo demo:"; cat "$work/demo.out"; exit 1; }

step "find_package(ergo) consumer"
"$cmake" -S "$src" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" -Dergo_DIR="$libdir/cmake/ergo" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra"
"$cmake" --build "$work/consumer"

step "run the ergo::ergo consumer"
"$work/consumer/consumer" >"$work/shared.out"
cat "$work/shared.out"
check_output "$work/shared.out" "the ergo::ergo consumer"

step "run the ergo::ergo_static consumer"
if readelf -d "$work/consumer/consumer_static" | grep -q 'NEEDED.*libergo'; then
  echo "FAIL: consumer_static needs libergo.so: ergo::ergo_static did not link statically"
  exit 1
fi
"$work/consumer/consumer_static" >"$work/static.out"
check_output "$work/static.out" "the ergo::ergo_static consumer"

step "pkg-config consumer"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
flags=$(pkg-config --cflags --libs ergo)
echo "pkg-config --cflags --libs ergo: $flags"
# shellcheck disable=SC2086 # the flags are words
"$cc" $extra "$src/main.c" -o "$work/pkgconfig_consumer" $flags
LD_LIBRARY_PATH="$libdir" "$work/pkgconfig_consumer" >"$work/pkgconfig.out"
check_output "$work/pkgconfig.out" "the pkg-config consumer"

step "pkg-config --static consumer"
sflags=$(pkg-config --static --cflags --libs ergo)
echo "pkg-config --static --cflags --libs ergo: $sflags"
# libergo.a, not libergo.so, from the same -lergo; jansson and pthread stay shared.
sflags=$(echo " $sflags " | sed "s| -lergo | -Wl,-Bstatic -lergo -Wl,-Bdynamic |")
# shellcheck disable=SC2086
"$cc" $extra "$src/main.c" -o "$work/pkgconfig_static" $sflags
if readelf -d "$work/pkgconfig_static" | grep -q 'NEEDED.*libergo'; then
  echo "FAIL: pkgconfig_static needs libergo.so"
  exit 1
fi
"$work/pkgconfig_static" >"$work/pkgconfig_static.out"
check_output "$work/pkgconfig_static.out" "the pkg-config --static consumer"

step "pkg-config --static ergo-static consumer (no flag rewriting)"
s2flags=$(pkg-config --static --cflags --libs ergo-static)
echo "pkg-config --static --cflags --libs ergo-static: $s2flags"
# shellcheck disable=SC2086
"$cc" $extra "$src/main.c" -o "$work/pkgconfig_static2" $s2flags
if readelf -d "$work/pkgconfig_static2" | grep -q 'NEEDED.*libergo'; then
  echo "FAIL: pkgconfig_static2 needs libergo.so"
  exit 1
fi
env -u LD_LIBRARY_PATH "$work/pkgconfig_static2" >"$work/pkgconfig_static2.out"
check_output "$work/pkgconfig_static2.out" "the ergo-static.pc consumer"

if [ -n "$mpiexec" ]; then
  # One merged report over 2 ranks, every rank ok.
  check_mpi() {
    out=$1
    n=$(grep -c '^MPI-Tasks: 2, nodes: 1' "$out" || true)
    m=$(grep -c '^consumer_mpi: rank [01] ok$' "$out" || true)
    if [ "$n" -ne 1 ] || [ "$m" -ne 2 ] || ! grep -q package_outer "$out"; then
      echo "FAIL: $2: expected one merged report of 2 ranks and 2 ok lines:"; cat "$out"; exit 1
    fi
  }
  run_mpi() {
    env -u LD_LIBRARY_PATH ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
      "$mpiexec" -n 2 --allow-run-as-root --oversubscribe "$@"
  }

  step "run the ergo::ergo_mpi consumer under mpiexec"
  run_mpi "$work/consumer/consumer_mpi" >"$work/mpi.out" 2>&1 || { cat "$work/mpi.out"; exit 1; }
  cat "$work/mpi.out"
  check_mpi "$work/mpi.out" "the ergo::ergo_mpi consumer"

  step "run the ergo::ergo_mpi_static consumer under mpiexec"
  if readelf -d "$work/consumer/consumer_mpi_static" | grep -q 'NEEDED.*libergo'; then
    echo "FAIL: consumer_mpi_static needs a libergo library: not linked statically"; exit 1
  fi
  run_mpi "$work/consumer/consumer_mpi_static" >"$work/mpi_static.out" 2>&1 || { cat "$work/mpi_static.out"; exit 1; }
  check_mpi "$work/mpi_static.out" "the ergo::ergo_mpi_static consumer"

  step "pkg-config ergo-mpi consumer (mpicc) under mpiexec"
  mflags=$(pkg-config --cflags --libs ergo-mpi)
  echo "pkg-config --cflags --libs ergo-mpi: $mflags"
  # shellcheck disable=SC2086
  "$mpicc" $extra "$src/mpi_main.c" -o "$work/pkgconfig_mpi" $mflags -Wl,-rpath,"$libdir"
  readelf -d "$work/pkgconfig_mpi" | grep -q 'NEEDED.*libergo-mpi' ||
    { echo "FAIL: pkgconfig_mpi does not need libergo-mpi (-u missing?)"; exit 1; }
  run_mpi "$work/pkgconfig_mpi" >"$work/pkgconfig_mpi.out" 2>&1 || { cat "$work/pkgconfig_mpi.out"; exit 1; }
  check_mpi "$work/pkgconfig_mpi.out" "the pkg-config ergo-mpi consumer"
fi

# Fortran, where this build made the module: the installed ergo.mod and libergo-fortran, from a
# program that names only them (libergo comes in through libergo-fortran).
if [ -f "$prefix/include/ergo.mod" ] && command -v gfortran >/dev/null; then
  step "Fortran consumer of the installed module"
  gfortran $extra -cpp "$src/../../examples/timestep.f90" -I"$prefix/include" -L"$libdir" \
    -lergo-fortran -Wl,-rpath,"$libdir" -o "$work/fortran" || { echo "FAIL: the Fortran consumer does not build"; exit 1; }
  env -u LD_LIBRARY_PATH ERGO_REPORT=stdout ERGO_ENERGY=none "$work/fortran" >"$work/fortran.out" 2>&1 ||
    { cat "$work/fortran.out"; echo "FAIL: the Fortran consumer failed"; exit 1; }
  grep -q 'FIND_HSML' "$work/fortran.out" || { cat "$work/fortran.out"; echo "FAIL: no Fortran regions in its report"; exit 1; }
fi
# C++: ergo.hpp installed, and find_package(ergo) in a C++-only project.
if [ -f "$prefix/include/ergo.hpp" ] && command -v g++ >/dev/null; then
  step "C++ consumer: ergo.hpp and find_package(ergo) in project(app CXX)"
  mkdir -p "$work/cxx"
  cat >"$work/cxx/CMakeLists.txt" <<'CMK'
cmake_minimum_required(VERSION 3.16)
project(app CXX)
find_package(ergo REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE ergo::ergo)
CMK
  cat >"$work/cxx/main.cpp" <<'CPP'
#include <ergo.hpp>
int main() {
  ergo::session run;
  ergo::region r(1, "package_cxx");
  return run.status();
}
CPP
  "$cmake" -S "$work/cxx" -B "$work/cxx/build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_CXX_FLAGS="$extra" >"$work/cxx.log" 2>&1 || { cat "$work/cxx.log"; echo "FAIL: C++ configure"; exit 1; }
  "$cmake" --build "$work/cxx/build" >>"$work/cxx.log" 2>&1 || { cat "$work/cxx.log"; echo "FAIL: C++ build"; exit 1; }
  env -u LD_LIBRARY_PATH ERGO_REPORT=stdout ERGO_ENERGY=none "$work/cxx/build/app" >"$work/cxx.out" 2>&1 ||
    { cat "$work/cxx.out"; echo "FAIL: the C++ consumer failed"; exit 1; }
  grep -q package_cxx "$work/cxx.out" || { cat "$work/cxx.out"; echo "FAIL: no C++ region in its report"; exit 1; }
fi

echo "package test: all consumers ok"
