#!/bin/sh
# Ctrl-C on a slow terminal for the pump prototype, by bench/slow-terminal.ts's method (its python
# terminal, copied: a PTY read a slice every 10 ms; Ctrl-C once it took 128 KiB; prints seconds from
# the key to the end, and the bytes taken after the key). `yes` bare, through script, derun and the
# prototype (whose child gets its terminal as controlling one through `setsid -c`, as derun does).
#   bench/native-pump/slow.sh DERUN PROTO [BYTES_PER_SECOND] [REPS]
set -eu
DERUN=$1 PROTO=$2 RATE=${3:-65536} REPS=${4:-3}
DIR=$(mktemp -d /tmp/native-pump-slow.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export DERUN_STATE_ROOT="$DIR/state" NO_COLOR=1
TICK=$((RATE / 100))
cat > "$DIR/term.py" <<'PY'
import os, pty, sys, time
per_tick, key = int(sys.argv[1]), bytes.fromhex(sys.argv[2])
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[3], sys.argv[3:])
total, after, sent_at = 0, 0, None
while True:
    try:
        data = os.read(fd, per_tick)
    except OSError:
        break
    if not data:
        break
    total += len(data)
    if sent_at is not None:
        after += len(data)
    elif total >= 128 * 1024:
        os.write(fd, key)
        sent_at = time.monotonic()
    time.sleep(0.01)
_, status = os.waitpid(pid, 0)
print("%.3f s, %d KiB after the key, status %d" % (time.monotonic() - sent_at, after // 1024, os.waitstatus_to_exitcode(status)))
PY
i=0
while [ $i -lt "$REPS" ]; do
  echo "bare   $(python3 "$DIR/term.py" $TICK 03 yes)"
  echo "script $(python3 "$DIR/term.py" $TICK 03 script -q -c yes /dev/null)"
  echo "derun  $(python3 "$DIR/term.py" $TICK 03 "$DERUN" run -- yes)"
  echo "proto  $(python3 "$DIR/term.py" $TICK 03 "$PROTO" "$DIR/rec.bin" -- setsid -c yes)"
  i=$((i + 1))
done
