/*
 * The kernel's cost of read(2) against recv(2) on a TCP socket: one loopback connection, a 512 B
 * send from one end and one read of it at the other, in rounds that alternate read and recv; prints
 * the median CPU time of the process per send and read for each, the median of the paired
 * differences, and in how many pairs recv was the cheaper. read(2) of a socket goes through the file
 * layer (the file position lock, the access checks) before it reaches the socket; recv(2) goes to
 * the socket at once. This is why the epoll transport reads with recv.
 *
 *   cc -O2 -o socket-read-cost socket-read-cost.c
 *   ./socket-read-cost [sends per round (30000)] [pairs of rounds (30)]
 *
 * Every read must return the 512 B just sent (Nagle off): a short or failed one stops the program.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MESSAGE 512
#define MAX_PAIRS 1000

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *values, int n) {
  qsort(values, n, sizeof *values, by_value);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

static void fail(const char *what) {
  perror(what);
  exit(1);
}

int main(int argc, char **argv) {
  long per_round = argc > 1 ? atol(argv[1]) : 30000;
  int pairs = argc > 2 ? atoi(argv[2]) : 30;
  if (per_round < 1 || pairs < 1 || pairs > MAX_PAIRS) {
    fprintf(stderr, "usage: socket-read-cost [sends per round] [pairs of rounds, 1..%d]\n", MAX_PAIRS);
    return 2;
  }
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0 || bind(listener, (struct sockaddr *)&address, sizeof address) < 0 ||
      listen(listener, 1) < 0 || getsockname(listener, (struct sockaddr *)&address, &length) < 0) {
    fail("listen");
  }
  int sender = socket(AF_INET, SOCK_STREAM, 0);
  if (sender < 0 || connect(sender, (struct sockaddr *)&address, sizeof address) < 0) {
    fail("connect");
  }
  int receiver = accept(listener, NULL, NULL);
  int one = 1;
  if (receiver < 0 || setsockopt(sender, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
    fail("accept");
  }
  static char buffer[65536];
  memset(buffer, 'x', MESSAGE);
  static double read_us[MAX_PAIRS], recv_us[MAX_PAIRS], difference[MAX_PAIRS];
  int recv_cheaper = 0;
  for (int round = 0; round < 2 * pairs; round++) {
    int use_recv = round % 2;
    double start = cpu_seconds();
    for (long i = 0; i < per_round; i++) {
      if (send(sender, buffer, MESSAGE, MSG_NOSIGNAL) != MESSAGE) {
        fail("send");
      }
      ssize_t n = use_recv ? recv(receiver, buffer, sizeof buffer, 0)
                           : read(receiver, buffer, sizeof buffer);
      if (n != MESSAGE) {
        fprintf(stderr, "a read returned %zd B, not %d\n", n, MESSAGE);
        return 1;
      }
    }
    double us = (cpu_seconds() - start) / per_round * 1e6;
    if (use_recv) {
      recv_us[round / 2] = us;
      difference[round / 2] = us - read_us[round / 2];
      recv_cheaper += us < read_us[round / 2];
    } else {
      read_us[round / 2] = us;
    }
  }
  printf("us of CPU per %d B send and read, medians of %d rounds of %ld:\n", MESSAGE, pairs,
         per_round);
  printf("read %.3f, recv %.3f, recv - read %+.3f (paired), recv cheaper in %d of %d pairs\n",
         median(read_us, pairs), median(recv_us, pairs), median(difference, pairs), recv_cheaper,
         pairs);
  return 0;
}
