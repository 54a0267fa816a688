#!/usr/bin/env bash
# Remove the NSPA namespace regions whose names start with $1 (e.g. "ctest-"), wherever
# a region of this user can live (docs/sync.md, "Where the region lives"), and the
# /dev/shm files of NSPA before sync core v2. Only files of this user are touched.
set -u
prefix=${1:?usage: clean-namespaces.sh <namespace prefix>}
uid=$(id -u)
for d in "${XDG_RUNTIME_DIR:-}" "/run/user/$uid" /dev/shm/nspa-"$uid" /dev/shm/nspa-"$uid".[1-7]; do
  [ -n "$d" ] && [ -d "$d" ] && [ -O "$d" ] || continue
  find "$d" -maxdepth 1 -user "$uid" -name "nspa-$prefix*" -type f -delete 2>/dev/null
done
find /dev/shm -maxdepth 1 -user "$uid" -name "nspa-$uid-$prefix*" -type f -delete 2>/dev/null
exit 0
