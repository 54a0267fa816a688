# Sourced by the bench scripts (bench/<module>/run.sh): what each of them sets up first.

# bench_paths <script> <builddir> <outdir>: build and out as absolute paths (out is made),
# here (the script's folder) and root (the repository)
bench_paths() {
  local usage="usage: $(basename "$1") <builddir> <outdir>"
  build=$(cd "${2:?$usage}" && pwd) || exit 2
  mkdir -p "${3:?$usage}"
  out=$(cd "$3" && pwd)
  here=$(cd "$(dirname "$1")" && pwd)
  root=$(cd "$here/../.." && pwd)
}

# bench_files <module>: work (emptied), samples and log (truncated) under out, and say
# (a line to the terminal and the log)
bench_files() {
  bench_module=$1
  work=$out/$1-work
  samples=$out/$1-samples.txt
  log=$out/$1-run.log
  rm -rf "$work"
  mkdir -p "$work"
  : >"$samples"
  : >"$log"
}
say() { echo "$bench_module: $*" | tee -a "$log"; }
