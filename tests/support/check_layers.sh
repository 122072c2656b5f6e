#!/usr/bin/env bash
# check_layers.sh SRC - the layering rule, checked on the includes: a folder includes only
# itself and the folders below it (util < core < optimizer < sim < energy, knobs < mpi <
# policies < runtime; energy and knobs stand side by side and know nothing of each other);
# tools/ and bench/ include only public headers, their own and the internal library's
# (runtime/toolkit.h; bench also the examples' shared workload); examples/ and kokkos/ only public headers.  Prints every include that breaks the
# rule (file:line) and exits 1; exit 0 when there is none.
set -u
src=${1:?usage: check_layers.sh SOURCE_DIR}
cd "$src" || exit 2
rank() {
  case $1 in
  util | web) echo 0 ;; core) echo 1 ;; optimizer) echo 2 ;; sim) echo 3 ;;
  energy | knobs) echo 4 ;; mpi) echo 5 ;; policies) echo 6 ;; runtime) echo 7 ;;
  *) echo -1 ;;
  esac
}
bad=0
for dir in util web core optimizer sim energy knobs mpi policies runtime; do
  [ -d "$dir" ] || continue
  mine=$(rank "$dir")
  while IFS=: read -r file line text; do
    inc=$(printf '%s' "$text" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
    case $inc in */*) ;; *) continue ;; esac # same folder or a public header
    to=${inc%%/*}
    [ "$to" = "$dir" ] && continue
    r=$(rank "$to")
    if [ "$r" -lt 0 ] || [ "$r" -ge "$mine" ]; then
      echo "$file:$line: $dir/ includes $inc (layer $to is not below $dir)"
      bad=1
    fi
  done < <(grep -n '#[[:space:]]*include[[:space:]]*"' "$dir"/*.c "$dir"/*.h 2>/dev/null)
done
for dir in tools examples bench kokkos dashboard; do
  [ -d "$dir" ] || continue
  while IFS=: read -r file line text; do
    inc=$(printf '%s' "$text" | sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p')
    case $inc in
    runtime/toolkit.h | web/assets.h | runtime/dashboard.h) [ "$dir" = examples ] || [ "$dir" = kokkos ] || continue ;;&
    ../examples/*) [ "$dir" = bench ] && continue ;;&
    */*)
      echo "$file:$line: $dir/ includes the internal header $inc (only public headers$([ "$dir" != examples ] && [ "$dir" != kokkos ] && echo ' and runtime/toolkit.h'))"
      bad=1 ;;
    esac
  done < <(grep -n '#[[:space:]]*include[[:space:]]*"' "$dir"/*.c "$dir"/*.h 2>/dev/null)
done
if [ "$bad" -eq 0 ]; then echo "layers: every include points down"; fi
exit "$bad"
