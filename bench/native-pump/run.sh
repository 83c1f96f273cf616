#!/bin/sh
# Side by side, interleaved: N MB of random bytes through a PTY under the bench's C reader
# (bench/lib/pty-reader.c, every byte compared), for `script -q`, `derun run` and the prototype
# (./proto.ts compiled as derun is). Prints one line per run: side, wall ms (the reader's), CPU
# seconds user+system of the whole tree (the C reader, cat and the shell included), peak RSS (KB) of
# the side's own process (script, derun or the prototype; /usr/bin/time inside the PTY).
#   bench/native-pump/run.sh DERUN PROTO [MB] [REPS]
set -eu
DERUN=$1 PROTO=$2 MB=${3:-50} REPS=${4:-5}
DIR=$(mktemp -d /tmp/native-pump.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
HERE=$(cd "$(dirname "$0")" && pwd)
cc -O2 -o "$DIR/pty-reader" "$HERE/../lib/pty-reader.c" -lutil
head -c $((MB * 1000000)) /dev/urandom > "$DIR/in.bin"
CHILD="stty raw -echo; cat '$DIR/in.bin'"
export DERUN_STATE_ROOT="$DIR/state" NO_COLOR=1
side() {
  name=$1; shift
  out=$(/usr/bin/time -f "%U %S" -o "$DIR/time" "$DIR/pty-reader" --expect "$DIR/in.bin" -- \
    /usr/bin/time -f %M -o "$DIR/peak" "$@")
  case $out in *"mismatch=-1 exit=0"*) ;; *) echo "$name: BAD $out" >&2; exit 1 ;; esac
  ms=${out##*ms=}
  set -- $(cat "$DIR/time")
  echo "$name ms=$ms cpu=$(echo "$1 + $2" | bc) peak_kb=$(cat "$DIR/peak")"
}
i=0
while [ $i -lt "$REPS" ]; do
  side script script -q -c "$CHILD" "$DIR/typescript"
  side derun "$DERUN" run --session-id "b$i" -- sh -c "$CHILD"
  side proto "$PROTO" "$DIR/rec.bin" -- sh -c "$CHILD"
  cmp -s "$DIR/rec.bin" "$DIR/in.bin" || { echo "proto: record differs" >&2; exit 1; }
  i=$((i + 1))
done
