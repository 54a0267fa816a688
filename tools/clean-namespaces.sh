#!/usr/bin/env bash
# Remove the NSPA namespace regions whose names start with $1 (e.g. "ctest-"), wherever
# a region of this user can live (docs/sync.md, "Where the region lives"), and the
# /dev/shm files of NSPA before sync core v2. Only files of this user are touched.
set -u
prefix=${1:?usage: clean-namespaces.sh <namespace prefix>}
uid=$(id -u)
# The library uses $XDG_RUNTIME_DIR alone when it is an absolute directory of ours with
# mode 0700; then only that directory is cleaned, so runs with different private runtime
# directories (parallel worktrees, CI jobs) never remove each other's live regions.
x=${XDG_RUNTIME_DIR:-}
if [ -n "$x" ] && [ "${x#/}" != "$x" ] && [ -d "$x" ] && [ ! -L "$x" ] && [ -O "$x" ] &&
   [ "$(stat -c %a "$x")" = 700 ]; then
  find "$x" -maxdepth 1 -user "$uid" -name "nspa-$prefix*" \( -type f -o -type s \) -delete 2>/dev/null
  exit 0
fi
for d in "/run/user/$uid" /dev/shm/nspa-"$uid" /dev/shm/nspa-"$uid".[1-7]; do
  [ -n "$d" ] && [ -d "$d" ] && [ -O "$d" ] || continue
  find "$d" -maxdepth 1 -user "$uid" -name "nspa-$prefix*" \( -type f -o -type s \) -delete 2>/dev/null
done
find /dev/shm -maxdepth 1 -user "$uid" -name "nspa-$uid-$prefix*" -type f -delete 2>/dev/null
exit 0
