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

struct pump {
  volatile int *c;
  unsigned char *data;
  int *records;
  int size, slots;
  int position, record;
  int master, wake_r, notify_w, show_fd;
  int open, unpublished, last_full, last_shown, commits, last_unshown;
};

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

static void take_wake_bytes(struct pump *p) {
  char b[64];
  read(p->wake_r, b, sizeof b); /* non-blocking: another look may have taken them */
}

/* Waits on the wake pipe alone (the consumer's room call, a stop request). */
static void wait_wake(struct pump *p) {
  struct pollfd f;
  f.fd = p->wake_r; f.events = POLLIN_; f.revents = 0;
  if (poll(&f, 1, -1) > 0) take_wake_bytes(p);
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

/* Readable fds as bits (1: the master, 2: the wake pipe) within ms (-1: no limit). */
static int wait_readable_for(struct pump *p, int ms) {
  struct pollfd f[2];
  int r, bits = 0;
  f[0].fd = p->wake_r; f[0].events = POLLIN_; f[0].revents = 0;
  f[1].fd = p->master; f[1].events = POLLIN_; f[1].revents = 0;
  r = poll(f, p->open ? 2 : 1, ms);
  if (r <= 0) return 0;
  if (f[0].revents) bits |= 2;
  if (p->open && f[1].revents) bits |= 1;
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
    int all_before_shown = p->commits - p->c[RECORDS] > p->last_unshown;
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

static void *run(void *arg) {
  struct pump *p = arg;
  char b = 1;
  pthread_setname_np(pthread_self(), "derun-pump"); /* tests and top -H find it by it */
  if (cas(p->c + STARTED, 0, 1) == 0) {
    while (p->open) {
      int ready;
      if (stop_requested(p)) { end_stream(p); break; }
      ready = wait_readable(p);
      if (ready & 2) take_wake_bytes(p);
      if ((ready & 1) && !stop_requested(p)) read_once(p);
    }
    store(p->c + CLOSED, 1);
    xadd(p->c + PRODUCED, 1);
  }
  write(p->notify_w, &b, 1);
  close(p->notify_w);
  free(p);
  return 0;
}

/* 0, or -1 when the thread cannot start (nothing read; the caller closes notify_w). */
int derun_pump_start(int *control, unsigned char *data, int size, int *records, int slots,
    int master, int wake_r, int notify_w, int show_fd) {
  unsigned long t;
  struct pump *p = calloc(1, sizeof *p);
  if (!p) return -1;
  p->c = control; p->data = data; p->size = size; p->records = records; p->slots = slots;
  p->master = master; p->wake_r = wake_r; p->notify_w = notify_w; p->show_fd = show_fd;
  p->open = 1; p->last_unshown = -1;
  if (pthread_create(&t, 0, run, p) != 0) { free(p); return -1; }
  pthread_detach(t);
  return 0;
}
`;
