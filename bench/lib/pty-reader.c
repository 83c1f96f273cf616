/*
 * The bench's outer terminal for throughput and start-up figures: a PTY whose master is read by a
 * plain C loop, faster than either side it measures (a JS data callback was slower than derun and
 * script, so the figure measured the bench). Compiled with cc at bench time (bench/lib/fast-pty.ts).
 *
 *   pty-reader [--expect FILE] -- ARGV...
 *
 * Runs ARGV on the slave of a new 120x40 PTY (its controlling terminal), reads the master until every
 * slave descriptor is closed, and compares each byte with FILE (mapped) as it arrives. Prints one
 * line: "bytes=N mismatch=M exit=E ms=T" (M is the first differing offset or -1; E the exit status,
 * or 128+signal; T the wall milliseconds from fork to the last byte and the exit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  const char *expect_path = NULL;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--expect") == 0) {
    expect_path = argv[i + 1];
    i += 2;
  }
  if (i < argc && strcmp(argv[i], "--") == 0) i++;
  if (i >= argc) {
    fprintf(stderr, "usage: pty-reader [--expect FILE] -- ARGV...\n");
    return 2;
  }
  const unsigned char *want = NULL;
  long long want_len = 0;
  if (expect_path) {
    int fd = open(expect_path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
      perror(expect_path);
      return 2;
    }
    want_len = st.st_size;
    if (want_len > 0) {
      want = mmap(NULL, want_len, PROT_READ, MAP_PRIVATE, fd, 0);
      if (want == MAP_FAILED) {
        perror("mmap");
        return 2;
      }
    }
    close(fd);
  }
  struct winsize ws = {.ws_row = 40, .ws_col = 120};
  int master;
  double started = now_ms();
  pid_t pid = forkpty(&master, NULL, NULL, &ws);
  if (pid < 0) {
    perror("forkpty");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[i], argv + i);
    perror(argv[i]);
    _exit(127);
  }
  static unsigned char buf[1 << 16];
  long long bytes = 0, mismatch = -1;
  for (;;) {
    ssize_t n = read(master, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; /* EIO: every slave descriptor closed */
    if (want && mismatch < 0) {
      long long avail = want_len - bytes;
      long long cmp = n < avail ? n : (avail > 0 ? avail : 0);
      if (cmp < n || memcmp(buf, want + bytes, cmp) != 0) {
        long long k = 0;
        while (k < cmp && buf[k] == want[bytes + k]) k++;
        mismatch = bytes + k;
      }
    }
    bytes += n;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  double ms = now_ms() - started;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (want && mismatch < 0 && bytes != want_len) mismatch = bytes < want_len ? bytes : want_len;
  printf("bytes=%lld mismatch=%lld exit=%d ms=%.3f\n", bytes, mismatch, code, ms);
  return 0;
}
