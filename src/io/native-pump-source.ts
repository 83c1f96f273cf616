/**
 * The C source of the native output pump (./native-pump.ts), compiled at run time by TinyCC through
 * bun:ffi `cc`, as the session leader is (src/pty/leader-source.ts): no headers, the few declarations
 * spelled out (Linux only). It is the reader thread of ./stream-reader.worker.ts for one stream (a
 * PTY's master) as a pthread: the same ring (./record-ring.ts), the same records, the same show
 * switch (./show-switch.ts), the same pauses before a wake-up, and no JavaScript VM.
 *
 * What C cannot do is Atomics.wait / Atomics.notify with JavaScriptCore: so the main thread is woken
 * through a pipe byte per publication (its reader of that pipe calls Atomics.notify on PRODUCED), and
 * the pump waits for room on its wake pipe, always asking for the consumer's room call (ROOM_CALL).
 * Shared words are read as volatile and changed with locked x86-64 instructions (sequentially
 * consistent, as JS's Atomics over a SharedArrayBuffer are); other architectures get no pump.
 *
 * The pump owns `notify_w` and closes it last: EOF on the notify pipe tells the main thread that the
 * pump touches no fd any more (it then closes the pump's non-blocking open of its terminal).
 */
export const NATIVE_PUMP_SOURCE = String.raw`
typedef unsigned long size_t;
typedef long ssize_t;
struct pollfd { int fd; short events; short revents; };
struct timespec_ { long sec; long nsec; };
extern ssize_t read(int, void *, size_t);
extern ssize_t write(int, const void *, size_t);
extern int close(int);
extern int poll(struct pollfd *, unsigned long, int);
extern int clock_gettime(int, struct timespec_ *);
extern void *calloc(size_t, size_t);
extern void free(void *);
extern int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);
extern int pthread_detach(unsigned long);
extern unsigned long pthread_self(void);
extern int pthread_setname_np(unsigned long, const char *);
extern int *__errno_location(void);
#define ERRNO (*__errno_location())
#define EINTR_ 4
#define EAGAIN_ 11
#define EPIPE_ 32
#define POLLIN_ 1
#define POLLOUT_ 4
extern int tcgetattr(int, void *);

/* ./record-ring.ts's control slots. */
enum { BYTES = 0, RECORDS = 1, PRODUCED = 2, CONSUMED = 3, CLOSED = 4, STARTED = 5, CAP = 6, SHOW = 7,
  TAG_FLAGS = 8, ROOM_CALL = 16, TAKING = 17 };
/* ./show-switch.ts's states; ./show-marks.ts's marks; ./stream-reader-thread.ts's stop request. */
enum { SW_OFF = 0, SW_ON = 1, SW_WRITING = 2, SW_STOPPING = 3 };
enum { SHOWN = 0x100, SHOW_BROKEN_PIPE = 0x200, SHOW_FAILED = 0x400, SHOW_SLOW = 0x800 };
#define STOP_REQUESTED 1
/* As ./stream-reader.worker.ts: see there for why. */
#define BULK_READ_BYTES 4095
#define BULK_PAUSE_MS 1
#define SHOWN_PAUSE_MS 2
#define PUBLISH_BYTES (512 * 1024)
#define SLOW_SHOW_NS 5000000L
#define SHOW_MAX_BYTES (16 * 1024)

static int xadd(volatile int *p, int v) {
  __asm__ __volatile__("lock; xaddl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
  return v;
}
static int cas(volatile int *p, int old, int new_) {
  int prev;
  __asm__ __volatile__("lock; cmpxchgl %2, %1" : "=a"(prev), "+m"(*p) : "r"(new_), "0"(old) : "memory");
  return prev;
}
static void store(volatile int *p, int v) {
  __asm__ __volatile__("xchgl %0, %1" : "+r"(v), "+m"(*p) : : "memory");
}

struct relay;
struct pump {
  struct relay *k; /* the key relay it hosts, or 0 */
  volatile int *c;
  unsigned char *data;
  int *records;
  int size, slots;
  int position, record;
  int master, wake_r, notify_w, show_fd;
  int open, unpublished, last_full, last_shown;
  /* Records committed, and the last one not shown: 64-bit, as JavaScript's numbers are in the Worker
   * (a 32-bit count wraps after 2^31 small reads, and a read was then shown ahead of the ring). */
  long commits, last_unshown;
};

/* Writes all of it to a non-blocking fd, waiting while it is full; 0, or an errno. */
static int write_all(int fd, const unsigned char *p, long n) {
  while (n > 0) {
    long w = write(fd, p, n);
    if (w > 0) { p += w; n -= w; continue; }
    if (w < 0 && ERRNO == EINTR_) continue;
    if (w < 0 && ERRNO == EAGAIN_) {
      struct pollfd f; f.fd = fd; f.events = POLLOUT_; f.revents = 0;
      poll(&f, 1, -1);
      continue;
    }
    return w < 0 ? ERRNO : 5;
  }
  return 0;
}

/* The key relay (./key-relay-loop.ts and ./key-relay-host.ts in C): its switch in state[0] (./key-relay.ts
 * RELAY), the count of key writes the main thread's writer holds in held[0]; its messages go to the main
 * thread framed on msg_w (kind byte, length as 4 bytes little-endian, payload). */
enum { R_OFF = 0, R_ON = 1, R_OFF_REQUESTED = 2, R_CLOSING = 3, R_UNOPENED = 4 };
enum { M_READY = 0, M_KEYS = 1, M_STOP_KEY = 2, M_END = 3, M_OFF = 4 };
#define KEYS_READ_BYTES 65536
struct relay {
  volatile int *state, *held;
  int from, to, wake_r, msg_w, done, watching;
  unsigned char buf[KEYS_READ_BYTES];
};

static void send(struct relay *k, int kind, const unsigned char *payload, int length) {
  unsigned char h[5];
  h[0] = (unsigned char)kind;
  h[1] = length & 255; h[2] = (length >> 8) & 255; h[3] = (length >> 16) & 255; h[4] = (length >> 24) & 255;
  write_all(k->msg_w, h, 5);
  if (length > 0) write_all(k->msg_w, payload, length);
}

static void relay_finish(struct relay *k) { k->done = 1; k->watching = 0; }

static void relay_turn_off(struct relay *k) {
  if (cas(k->state, R_OFF_REQUESTED, R_OFF) == R_OFF_REQUESTED) send(k, M_OFF, 0, 0);
}

/* Before each wait: a switch-off asked for is done (and said); stdin is watched exactly while on. */
static void relay_settle(struct relay *k) {
  int state;
  if (!k || k->done) return;
  state = k->state[0];
  if (state == R_CLOSING) { relay_finish(k); return; }
  if (state == R_OFF_REQUESTED) relay_turn_off(k);
  k->watching = k->state[0] == R_ON;
}

/* Reading stops here (a stop key, the end): the main thread hears why, then that it is off. */
static void relay_stop(struct relay *k, int kind, const unsigned char *payload, int length) {
  send(k, kind, payload, length);
  cas(k->state, R_ON, R_OFF_REQUESTED);
  relay_turn_off(k);
}

/* The child's terminal's stop key now (VSUSP while ISIG; Linux's struct termios), or -1. */
static int stop_key(int fd) {
  unsigned char t[64];
  unsigned lflag;
  if (tcgetattr(fd, t) != 0) return -1;
  lflag = t[12] | t[13] << 8 | t[14] << 16 | (unsigned)t[15] << 24;
  if (!(lflag & 1) || t[17 + 10] == 0) return -1;
  return t[17 + 10];
}

/* Keys to the child's terminal; what cannot go now goes to the main thread's writer, after what it holds. */
static void relay_write(struct relay *k, const unsigned char *keys, int length) {
  int written = 0;
  if (k->held[0] == 0) {
    while (written < length) {
      long w = write(k->to, keys + written, length - written);
      if (w > 0) written += (int)w;
      else if (!(w < 0 && ERRNO == EINTR_)) break; /* EAGAIN (queue full), EIO: the writer knows what to do */
    }
  }
  if (written == length) return;
  xadd(k->held, 1); /* before it is sent: later keys see it and follow it */
  send(k, M_KEYS, keys + written, length - written);
}

/* stdin was readable: one read, forwarded up to and including the stop key (looked at once more first). */
static void relay_keys(struct relay *k) {
  struct pollfd f;
  long n;
  int i, at = -1, key;
  unsigned char error;
  if (k->state[0] != R_ON) return;
  f.fd = k->from; f.events = POLLIN_; f.revents = 0;
  if (poll(&f, 1, 0) <= 0) return; /* any event (a hang-up too) is read: it ends the input */
  n = read(k->from, k->buf, KEYS_READ_BYTES);
  if (n < 0 && (ERRNO == EAGAIN_ || ERRNO == EINTR_)) return;
  if (n <= 0) { error = n < 0; relay_stop(k, M_END, &error, 1); return; }
  key = stop_key(k->to);
  for (i = 0; key >= 0 && i < n; i++) if (k->buf[i] == key) { at = i; break; }
  relay_write(k, k->buf, at < 0 ? (int)n : at + 1);
  if (at >= 0) relay_stop(k, M_STOP_KEY, k->buf + at + 1, (int)n - at - 1);
}

static void take_bytes(int fd) {
  char b[64];
  read(fd, b, sizeof b); /* non-blocking: another look may have taken them */
}

/* The relay's part of a wait's poll set: its wake pipe, and stdin while on. How many it added. */
static int relay_fds(struct relay *k, struct pollfd *f) {
  int n = 0;
  if (!k || k->done) return 0;
  f[n].fd = k->wake_r; f[n].events = POLLIN_; f[n].revents = 0; n++;
  if (k->watching) { f[n].fd = k->from; f[n].events = POLLIN_; f[n].revents = 0; n++; }
  return n;
}

/* Acts on what the relay's fds had (after relay_fds added n of them at f). */
static void relay_handle(struct relay *k, struct pollfd *f, int n) {
  if (n > 0 && f[0].revents) take_bytes(k->wake_r);
  if (n > 1 && f[1].revents) relay_keys(k);
}

static long now_ns(void) {
  struct timespec_ t;
  clock_gettime(1, &t);
  return t.sec * 1000000000L + t.nsec;
}

static void publish(struct pump *p) {
  char b = 1;
  p->unpublished = 0;
  xadd(p->c + PRODUCED, 1);
  write(p->notify_w, &b, 1); /* non-blocking: a full pipe has a wake-up in it already */
}

static void commit_quietly(struct pump *p, int tag, int length) {
  p->records[p->record * 2] = tag;
  p->records[p->record * 2 + 1] = length;
  p->record = (p->record + 1) % p->slots;
  p->position = (p->position + length) % p->size;
  xadd(p->c + BYTES, length);
  xadd(p->c + RECORDS, 1);
}

static int room(struct pump *p) {
  int queued, cap, free_, limit;
  if (p->c[RECORDS] == p->slots) return 0;
  queued = p->c[BYTES];
  cap = p->c[CAP];
  limit = cap > 0 && cap < p->size ? cap : p->size;
  free_ = limit - queued;
  if (free_ < 0) free_ = 0;
  return free_ < p->size - p->position ? free_ : p->size - p->position;
}

/* Waits on the wake pipe (the consumer's room call, a stop request) and the relay's fds, not the master. */
static void wait_wake(struct pump *p) {
  struct pollfd f[3];
  int n;
  relay_settle(p->k);
  f[0].fd = p->wake_r; f[0].events = POLLIN_; f[0].revents = 0;
  n = relay_fds(p->k, f + 1);
  if (poll(f, 1 + n, -1) <= 0) return;
  if (f[0].revents) take_bytes(p->wake_r);
  if (n) relay_handle(p->k, f + 1, n);
}

static int stop_requested(struct pump *p) { return p->open && p->c[TAG_FLAGS] == STOP_REQUESTED; }

/* Until the ring has room (returned), or a stop request when interruptible (0). */
static int wait_for_room(struct pump *p, int interruptible) {
  for (;;) {
    int seen = p->c[CONSUMED], r = room(p);
    if (r > 0) return r;
    if (interruptible && stop_requested(p)) return 0;
    /* Full: back-pressure reaches the child here. Each release calls the pump through its pipe. */
    publish(p);
    store(p->c + ROOM_CALL, 1);
    if (p->c[CONSUMED] == seen) wait_wake(p);
    store(p->c + ROOM_CALL, 0);
  }
}

/* Within ms (-1: no limit): 1 when the master is readable, 2 when anything else was (and was handled). */
static int wait_readable_for(struct pump *p, int ms) {
  struct pollfd f[4];
  int r, n, bits = 0;
  f[0].fd = p->open ? p->master : -1; f[0].events = POLLIN_; f[0].revents = 0; /* -1: not watched */
  f[1].fd = p->wake_r; f[1].events = POLLIN_; f[1].revents = 0;
  n = relay_fds(p->k, f + 2);
  r = poll(f, 2 + n, ms);
  if (r <= 0) return 0;
  if (f[1].revents) { take_bytes(p->wake_r); bits |= 2; }
  if (n && (f[2].revents || (n > 1 && f[3].revents))) { relay_handle(p->k, f + 2, n); bits |= 2; }
  if (f[0].revents) bits |= 1;
  return bits;
}

static int wait_readable(struct pump *p) {
  int ready = wait_readable_for(p, p->unpublished > 0 ? 0 : -1);
  if (!ready && p->last_full) ready = wait_readable_for(p, BULK_PAUSE_MS);
  if (!ready && p->last_shown) ready = wait_readable_for(p, SHOWN_PAUSE_MS);
  p->last_shown = 0;
  if (!ready && p->unpublished > 0) {
    publish(p);
    ready = wait_readable_for(p, -1);
  }
  return ready;
}

/* Ends the stream: no more reading of the master, and its end record. */
static void end_stream(struct pump *p) {
  p->open = 0;
  wait_for_room(p, 0);
  commit_quietly(p, 0, 0);
  publish(p);
  p->last_unshown = p->commits++;
}

/* Writes what the terminal takes now; the count, or -1 - errno. */
static int write_what_goes(int fd, const unsigned char *bytes, int length) {
  int written = 0;
  while (written < length) {
    long w = write(fd, bytes + written, length - written);
    if (w > 0) { written += (int)w; continue; }
    if (w < 0 && ERRNO == EINTR_) continue;
    if (w < 0 && ERRNO == EAGAIN_) break;
    return -1 - (w < 0 ? ERRNO : 5);
  }
  return written;
}

/* The read just taken, written to derun's terminal first and committed marked shown; the rest for the main thread. */
static void show_and_commit(struct pump *p, int length) {
  long started = now_ns();
  int mark = SHOWN, shown = write_what_goes(p->show_fd, p->data + p->position, length);
  if (shown < 0) {
    mark |= shown == -1 - EPIPE_ ? SHOW_BROKEN_PIPE : SHOW_FAILED;
    shown = length;
    p->show_fd = -1; /* no more direct writes */
  } else if (shown < length) mark |= SHOW_SLOW;
  if (now_ns() - started > SLOW_SHOW_NS) mark |= SHOW_SLOW;
  if (shown > 0) { commit_quietly(p, mark, shown); p->commits++; }
  if (shown < length) { commit_quietly(p, 0, length - shown); p->last_unshown = p->commits++; }
  p->unpublished += length;
  p->last_shown = shown == length;
  p->last_full = 0;
}

/* Takes the switch for one write (ON to WRITING); gives it back after (STOPPING: the main thread waits). */
static int show_begin(struct pump *p) { return cas(p->c + SHOW, SW_ON, SW_WRITING) == SW_ON; }
static void show_end(struct pump *p) {
  if (cas(p->c + SHOW, SW_WRITING, SW_ON) != SW_WRITING) store(p->c + SHOW, SW_OFF);
}

static void read_into(struct pump *p, int r) {
  long n = read(p->master, p->data + p->position, r);
  if (n < 0) {
    if (ERRNO != EAGAIN_ && ERRNO != EINTR_) end_stream(p); /* EIO: every slave fd closed */
    return;
  }
  if (n == 0) { end_stream(p); return; }
  if (n <= SHOW_MAX_BYTES && p->show_fd >= 0 && show_begin(p)) {
    /* Only once everything before it is on the screen; two records' room for a rest. */
    int all_before_shown = p->commits - (long)p->c[RECORDS] > p->last_unshown;
    int shown = all_before_shown && p->slots - p->c[RECORDS] >= 2;
    if (shown) show_and_commit(p, (int)n);
    show_end(p);
    if (shown) return;
  }
  commit_quietly(p, 0, (int)n);
  p->last_unshown = p->commits++;
  p->last_full = n >= BULK_READ_BYTES;
  p->unpublished += (int)n;
  if (p->unpublished >= PUBLISH_BYTES) publish(p);
}

static void read_once(struct pump *p) {
  int r = wait_for_room(p, 1);
  if (r == 0) return;
  store(p->c + TAKING, 1);
  read_into(p, r);
  store(p->c + TAKING, 0);
}

/* The streams ended: a relay taken up is served until the main thread closes it (one nobody took ends). */
static void serve_relay(struct pump *p) {
  struct relay *k = p->k;
  if (!k) return;
  if (p->unpublished > 0) publish(p);
  if (!k->done && cas(k->state, R_UNOPENED, R_CLOSING) == R_UNOPENED) relay_finish(k);
  for (relay_settle(k); !k->done; relay_settle(k)) wait_wake(p);
}

static void *run(void *arg) {
  struct pump *p = arg;
  char b = 1;
  pthread_setname_np(pthread_self(), "derun-pump"); /* tests and top -H find it by it */
  if (cas(p->c + STARTED, 0, 1) == 0) {
    if (p->k) send(p->k, M_READY, 0, 0);
    while (p->open) {
      int ready;
      if (stop_requested(p)) { end_stream(p); break; }
      relay_settle(p->k);
      ready = wait_readable(p);
      if ((ready & 1) && !stop_requested(p)) read_once(p);
    }
    serve_relay(p);
    if (p->k) { relay_finish(p->k); close(p->k->wake_r); } /* the host's end of the relay's wake pipe */
    store(p->c + CLOSED, 1);
    xadd(p->c + PRODUCED, 1);
  }
  write(p->notify_w, &b, 1);
  close(p->notify_w);
  if (p->k) { close(p->k->msg_w); free(p->k); }
  free(p);
  return 0;
}

/* 0, or -1 when the thread cannot start (nothing read; the caller closes notify_w and msg_w). keys: the
 * relay's [from, to, wake_r, msg_w], or 0 for none; state and held its shared words. */
int derun_pump_start(int *control, unsigned char *data, int size, int *records, int slots,
    int master, int wake_r, int notify_w, int show_fd, int *keys, int *state, int *held) {
  unsigned long t;
  struct pump *p = calloc(1, sizeof *p);
  if (!p) return -1;
  p->c = control; p->data = data; p->size = size; p->records = records; p->slots = slots;
  p->master = master; p->wake_r = wake_r; p->notify_w = notify_w; p->show_fd = show_fd;
  p->open = 1; p->last_unshown = -1;
  if (keys) {
    struct relay *k = p->k = calloc(1, sizeof *k);
    if (!k) { free(p); return -1; }
    k->from = keys[0]; k->to = keys[1]; k->wake_r = keys[2]; k->msg_w = keys[3];
    k->state = state; k->held = held;
  }
  if (pthread_create(&t, 0, run, p) != 0) { free(p->k); free(p); return -1; }
  pthread_detach(t);
  return 0;
}
`;
