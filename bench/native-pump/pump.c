/*
 * Prototype of a native output pump (issue 37 items 2 and 6; not wired into derun): one pthread
 * that reads a PTY master, writes every byte to derun's stdout (full writes; EINTR and EAGAIN
 * handled), and leaves the same bytes in a ring that JS owns, waking JS with one pipe byte only
 * when JS said it sleeps. No headers, as src/pty/leader-source.ts: declarations spelled out
 * (Linux x86-64 only here: the fences are x86 asm).
 *
 * Shared state (ints, in a JS Int32Array): [0] head (bytes the pump published, wrapping u32),
 * [1] tail (bytes JS recorded), [2] JS sleeps (wants a wake byte), [3] pump sleeps (ring full, wants
 * a byte on the space pipe), [4] done (1: EOF/EIO), [5] errno of a failed stdout write.
 */
typedef unsigned long size_t;
typedef long ssize_t;
struct pollfd { int fd; short events; short revents; };
extern ssize_t read(int, void *, size_t);
extern ssize_t write(int, const void *, size_t);
extern int poll(struct pollfd *, unsigned long, int);
extern int pipe2(int *, int);
extern int pthread_create(unsigned long *, const void *, void *(*)(void *), void *);
extern int pthread_detach(unsigned long);
extern int *__errno_location(void);
#define ERRNO (*__errno_location())
#define EINTR_ 4
#define EAGAIN_ 11
#define POLLIN_ 1
#define POLLOUT_ 4
#define O_CLOEXEC_ 02000000
#define O_NONBLOCK_ 04000
#define CHUNK 65536
/* JS is woken once this much waits in the ring, or when the PTY has been quiet for IDLE_MS: a PTY
 * read brings at most 4 KiB, and a wake per read cost the main thread more than the record. */
#define BATCH 65536
#define IDLE_MS 2

static void fence(void) { __asm__ __volatile__("mfence" ::: "memory"); }

struct pump {
  int master, out, wake_w, space_r;
  int keys; /* derun's stdin, whose keys the pump writes to the master as script does; -1: none */
  volatile int *state;
  unsigned char *ring;
  unsigned size; /* a power of two */
};
static struct pump P;

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

static void wake_js(void) {
  char b = 1;
  fence();
  if (P.state[2]) { P.state[2] = 0; write(P.wake_w, &b, 1); }
}

/* Waits until the ring has room: says it sleeps, re-checks, blocks on the space pipe. */
static unsigned room(unsigned head) {
  char b[64];
  for (;;) {
    unsigned used = head - (unsigned)P.state[1];
    if (used < P.size) return P.size - used;
    P.state[3] = 1;
    fence();
    used = head - (unsigned)P.state[1];
    if (used < P.size) { P.state[3] = 0; continue; }
    wake_js();
    read(P.space_r, b, sizeof b);
  }
}

/* Keys typed: read and written to the child's terminal on this thread, as in script's one loop (a
 * key and its echo take no other thread). The end of stdin stops the watch. A prototype's shortcut:
 * a paste larger than the child's input queue, into a child that writes and does not read, would
 * wait here with the output unread (derun's relay hands such keys to its main thread instead). */
static void relay_keys(void) {
  unsigned char k[4096];
  long n = read(P.keys, k, sizeof k);
  if (n < 0 && ERRNO == EINTR_) return;
  if (n <= 0) { P.keys = -1; return; }
  write_all(P.master, k, n);
}

/* Waits up to ms for the master's output, relaying keys meanwhile; 1 when the master is readable. */
static int wait_output(int ms) {
  struct pollfd f[2];
  int n = P.keys >= 0 ? 2 : 1, r;
  f[0].fd = P.master; f[0].events = POLLIN_; f[0].revents = 0;
  f[1].fd = P.keys; f[1].events = POLLIN_; f[1].revents = 0;
  r = poll(f, n, ms);
  if (r > 0 && n == 2 && f[1].revents) relay_keys();
  return r > 0 && f[0].revents != 0;
}

static void *run(void *arg) {
  unsigned head = (unsigned)P.state[0], woken = head;
  (void)arg;
  for (;;) {
    unsigned free_ = room(head), at = head & (P.size - 1), n = P.size - at;
    if (n > free_) n = free_;
    if (n > CHUNK) n = CHUNK;
    if (P.keys >= 0) wait_output(0); /* a key between two reads of a long output */
    long got = read(P.master, P.ring + at, n);
    if (got < 0 && ERRNO == EINTR_) continue;
    if (got < 0 && ERRNO == EAGAIN_) {
      if (woken != head && !wait_output(IDLE_MS)) { wake_js(); woken = head; }
      while (!wait_output(-1)) {}
      continue;
    }
    if (got <= 0) break; /* EOF, or EIO: every slave fd closed */
    if (!P.state[5]) {
      int e = write_all(P.out, P.ring + at, got);
      if (e) P.state[5] = e;
    }
    head += (unsigned)got;
    P.state[0] = (int)head;
    if (head - woken >= BATCH) { wake_js(); woken = head; }
  }
  P.state[4] = 1;
  fence();
  { char b = 1; P.state[2] = 0; write(P.wake_w, &b, 1); }
  return 0;
}

/* fds[0..1]: the wake pipe (JS reads [0]); fds[2..3]: the space pipe (JS writes [3]). */
int pump_pipes(int *fds) {
  if (pipe2(fds, O_CLOEXEC_ | O_NONBLOCK_) != 0) return -1;
  if (pipe2(fds + 2, O_CLOEXEC_) != 0) return -1;
  return 0;
}

int pump_start(int master, int out, int keys, int wake_w, int space_r, int *state, unsigned char *ring, int size) {
  unsigned long t;
  P.keys = keys;
  P.master = master; P.out = out; P.wake_w = wake_w; P.space_r = space_r;
  P.state = state; P.ring = ring; P.size = (unsigned)size;
  if (pthread_create(&t, 0, run, 0) != 0) return -1;
  pthread_detach(t);
  return 0;
}
