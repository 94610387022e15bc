# Shared by the benchmark scripts (source it): timing helpers.

# Wall time of a command in ms over N runs, printed as "best median".
timeit() {
  local n=$1; shift
  local times=()
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%d %d\n", a[1], a[int((NR+1)/2)]}'
}
