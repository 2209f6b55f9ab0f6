/* wsclient.c - low-overhead epoll WebSocket spectator swarm for bench/fanout_bench.py (issue 29).
 *
 * ~1-2 us of client CPU per received message, so that on a 2-core box the client is not what limits
 * the measurement of fast servers. fanout_bench.py builds it with gcc into bench/.cache on first use.
 *
 * build: gcc -O2 -o wsclient wsclient.c
 * usage: wsclient PORT PATH N SIO(0|1) [CONC] [JOIN]
 *   SIO=1: Engine.IO v4 / Socket.IO v5 over WebSocket: answers '0{..}' with '40', waits '40{..}',
 *          answers pings '2' with '3', records '42["state",{"seq":S,"t0":T,...}]'.
 *   SIO=0: plain text frames containing {"seq":S,"t0":T,...}.
 *   JOIN (SIO=1 only; e.g. '42["join",{"match":"abc"}]'): sent as soon as the namespace is
 *          connected; a spectator counts as connected only once its first '42["state",' frame has
 *          arrived (the join's answer). In JOIN mode only '42["state",' frames are recorded, their
 *          "seq" is read with memmem (the first "seq": key of the frame, no JSON parsing) and "t0"
 *          is optional: without it the recorded value is the absolute CLOCK_MONOTONIC arrival
 *          time and the driver subtracts its own send time.
 * stdout: "READY <connected> <failed>" once all N are connected (or gave up),
 *         "DONE <seq>" when every connected client has received event <seq>,
 *         after "STOP" on stdin: "R <seq> <count> <max_ns> <median_ns> <min_ns>" per seq,
 *         "Z <frames> <min_len> <max_len> <sum_len> <dup> <out_of_order> <skipped> <alive>
 *            <dropped_after_ready>" (recorded frames since READY and their WebSocket payload
 *         lengths; per connection: the same seq twice, a lower seq than the last one, seqs jumped
 *         over; connections still open; connections lost after READY), then "END".
 * latency_ns = CLOCK_MONOTONIC at read() - t0 (driver's time.monotonic_ns()).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ 65536
#define MAXSEQ 8192

typedef struct {
    int fd;
    int state; /* 0 connecting, 1 upgrade sent, 2 ws open (sio: wait EIO open), 3 wait SIO ack,
                  5 join sent, waiting for the first state, 4 ready, -1 dead */
    int retries;
    long last_seq; /* last recorded seq on this connection, -1 none */
    size_t len;
    char *buf;
} conn_t;

static int PORT, N, SIO, CONC = 32;
static const char *PATH;
static const char *JOIN = NULL; /* Socket.IO message sent after the namespace connect */
/* frame statistics since READY */
static long long fr_count = 0, fr_sum = 0, n_dup = 0, n_ooo = 0, n_skipped = 0, n_dropped = 0;
static long fr_min = -1, fr_max = -1;
static conn_t *conns;
static int epfd;
static int next_to_start = 0, inflight = 0, nready = 0, nfailed = 0, target = 0;
static int64_t *lat[MAXSEQ];
static int cnt[MAXSEQ];
static int maxseq = -1;
static int *retry_queue, rq_head = 0, rq_tail = 0;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void send_frame(conn_t *c, const char *p, size_t n, int opcode) {
    unsigned char out[4096];
    size_t h;
    if (n > sizeof out - 8) return;
    uint32_t r = (uint32_t)rand();
    unsigned char mask[4] = {r & 0xff, (r >> 8) & 0xff, (r >> 16) & 0xff, (r >> 24) & 0xff};
    out[0] = 0x80 | opcode;
    if (n < 126) {
        out[1] = 0x80 | (unsigned char)n;
        h = 2;
    } else {
        out[1] = 0x80 | 126;
        out[2] = (unsigned char)(n >> 8);
        out[3] = (unsigned char)(n & 0xff);
        h = 4;
    }
    memcpy(out + h, mask, 4);
    h += 4;
    for (size_t i = 0; i < n; i++) out[h + i] = p[i] ^ mask[i & 3];
    if (send(c->fd, out, h + n, MSG_NOSIGNAL) < 0) { /* ignore */ }
}

static void start_conn(int i);

static void conn_failed(int i) {
    conn_t *c = &conns[i];
    if (c->fd >= 0) { epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL); close(c->fd); c->fd = -1; }
    if (c->state != 4) inflight--;
    if (c->state == 4) { nready--; if (target) n_dropped++; }
    c->state = -1;
    c->len = 0;
    if (++c->retries <= 5 && target == 0) {
        retry_queue[rq_tail++ % N] = i;
    } else {
        nfailed++;
    }
}

static void maybe_start_more(void) {
    while (inflight < CONC) {
        if (rq_head < rq_tail) { start_conn(retry_queue[rq_head++ % N]); continue; }
        if (next_to_start < N) { start_conn(next_to_start++); continue; }
        break;
    }
    if (target == 0 && nready + nfailed == N) {
        target = nready;
        printf("READY %d %d\n", nready, nfailed);
        fflush(stdout);
    }
}

static void start_conn(int i) {
    conn_t *c = &conns[i];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(PORT);
    a.sin_addr.s_addr = htonl(0x7f000001);
    c->fd = fd;
    c->state = 0;
    c->len = 0;
    c->last_seq = -1;
    inflight++;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
        conn_failed(i);
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i};
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* returns the seq recorded, or -1 */
static long record(conn_t *c, const char *p, size_t n, int64_t t) {
    const char *s = memmem(p, n, "\"seq\":", 6);
    if (!s) return -1;
    s += 6;
    while (s < p + n && *s == ' ') s++;
    long seq = strtol(s, (char **)&s, 10);
    const char *u = memmem(s, n - (s - p), "\"t0\":", 5);
    long long t0 = 0;
    if (u) {
        u += 5;
        while (u < p + n && *u == ' ') u++;
        t0 = strtoll(u, NULL, 10);
    } else if (!JOIN) {
        return -1;
    }
    if (seq < 0 || seq >= MAXSEQ) return -1;
    if (target) {
        fr_count++;
        fr_sum += (long long)n;
        if (fr_min < 0 || (long)n < fr_min) fr_min = (long)n;
        if ((long)n > fr_max) fr_max = (long)n;
        if (c->last_seq >= 0) {
            if (seq == c->last_seq) n_dup++;
            else if (seq < c->last_seq) n_ooo++;
            else if (seq > c->last_seq + 1) n_skipped += seq - c->last_seq - 1;
        }
    }
    if (seq > c->last_seq) c->last_seq = seq;
    if (!lat[seq]) lat[seq] = calloc(N, sizeof(int64_t));
    if (seq > maxseq) maxseq = seq;
    if (cnt[seq] < N) lat[seq][cnt[seq]++] = t - t0;
    if (target && cnt[seq] == target) { printf("DONE %ld\n", seq); fflush(stdout); }
    return seq;
}

static int is_state(const char *p, size_t n) {
    return n > 11 && memcmp(p, "42[\"state\",", 11) == 0;
}

static void on_message(int i, const char *p, size_t n, int64_t t) {
    conn_t *c = &conns[i];
    if (!SIO) { record(c, p, n, t); return; }
    if (n == 0) return;
    if (p[0] == '4' && n > 1) {
        if (p[1] == '2') {
            if (!JOIN) record(c, p, n, t);
            else if (is_state(p, n) && record(c, p, n, t) >= 0 && c->state == 5) {
                c->state = 4; inflight--; nready++;
            }
        } else if (p[1] == '0' && c->state == 3) {
            if (JOIN) {
                c->state = 5;
                send_frame(c, JOIN, strlen(JOIN), 1);
            } else {
                c->state = 4; inflight--; nready++;
            }
        } else if (p[1] == '4') conn_failed(i);
    } else if (p[0] == '2') {
        send_frame(c, "3", 1, 1);
    } else if (p[0] == '0' && c->state == 2) {
        c->state = 3;
        send_frame(c, "40", 2, 1);
    }
}

static void on_readable(int i, int64_t t) {
    conn_t *c = &conns[i];
    for (;;) {
        if (c->state < 0) return;
        size_t want = BUFSZ - c->len;
        ssize_t r = recv(c->fd, c->buf + c->len, want, 0);
        if (r == 0) { conn_failed(i); return; }
        if (r < 0) { if (errno == EAGAIN) return; conn_failed(i); return; }
        c->len += r;
        /* a short read drained the socket: no second recv() just to see EAGAIN (level-triggered
         * epoll reports the socket again when more arrives); halves the syscalls per frame */
        int drained = (size_t)r < want;
        size_t pos = 0;
        if (c->state == 1) {
            char *e = memmem(c->buf, c->len, "\r\n\r\n", 4);
            if (!e) continue;
            if (c->len < 12 || memcmp(c->buf + 9, "101", 3) != 0) { conn_failed(i); return; }
            pos = (e - c->buf) + 4;
            c->state = 2;
            if (!SIO) { c->state = 4; inflight--; nready++; }
        }
        while (c->len - pos >= 2) {
            unsigned char b0 = c->buf[pos], b1 = c->buf[pos + 1];
            size_t ln = b1 & 0x7f, hdr = 2;
            if (ln == 126) {
                if (c->len - pos < 4) break;
                ln = ((unsigned char)c->buf[pos + 2] << 8) | (unsigned char)c->buf[pos + 3];
                hdr = 4;
            } else if (ln == 127) {
                if (c->len - pos < 10) break;
                ln = 0;
                for (int k = 0; k < 8; k++) ln = (ln << 8) | (unsigned char)c->buf[pos + 2 + k];
                hdr = 10;
            }
            if (b1 & 0x80) hdr += 4;
            if (c->len - pos < hdr + ln) break;
            const char *pl = c->buf + pos + hdr;
            int op = b0 & 0x0f;
            pos += hdr + ln;
            if (op == 1 || op == 2 || op == 0) on_message(i, pl, ln, t);
            else if (op == 9) send_frame(c, pl, ln, 0xA);
            else if (op == 8) { conn_failed(i); return; }
            if (c->state < 0) return;
        }
        if (pos) { memmove(c->buf, c->buf + pos, c->len - pos); c->len -= pos; }
        if (c->len == BUFSZ) { conn_failed(i); return; }
        if (drained) return;
    }
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: wsclient PORT PATH N SIO [CONC] [JOIN]\n"); return 2; }
    PORT = atoi(argv[1]); PATH = argv[2]; N = atoi(argv[3]); SIO = atoi(argv[4]);
    if (argc > 5) CONC = atoi(argv[5]);
    if (argc > 6 && argv[6][0]) JOIN = argv[6];
    srand((unsigned)now_ns());
    conns = calloc(N, sizeof(conn_t));
    retry_queue = calloc(N, sizeof(int));
    for (int i = 0; i < N; i++) { conns[i].fd = -1; conns[i].buf = malloc(BUFSZ); }
    epfd = epoll_create1(0);
    struct epoll_event sev = {.events = EPOLLIN, .data.u32 = 0xffffffffu};
    epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &sev);
    maybe_start_more();
    char req[1024];
    int reqlen = snprintf(req, sizeof req,
        "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", PATH, PORT);
    struct epoll_event evs[1024];
    int stop = 0;
    while (!stop) {
        int k = epoll_wait(epfd, evs, 1024, 50);
        int64_t t = now_ns();
        for (int j = 0; j < k; j++) {
            uint32_t i = evs[j].data.u32;
            if (i == 0xffffffffu) {
                char b[64];
                ssize_t r = read(0, b, sizeof b);
                if (r <= 0 || memmem(b, r, "STOP", 4)) stop = 1;
                continue;
            }
            conn_t *c = &conns[i];
            if (c->state == 0 && (evs[j].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
                int err = 0; socklen_t el = sizeof err;
                getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
                if (err || (evs[j].events & (EPOLLERR | EPOLLHUP))) { conn_failed(i); continue; }
                send(c->fd, req, reqlen, MSG_NOSIGNAL);
                c->state = 1;
                struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
                epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
                continue;
            }
            if (evs[j].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(i, t);
        }
        if (target == 0) maybe_start_more();
    }
    for (int s = 0; s <= maxseq; s++) {
        if (!cnt[s]) continue;
        qsort(lat[s], cnt[s], sizeof(int64_t), cmp64);
        printf("R %d %d %lld %lld %lld\n", s, cnt[s], (long long)lat[s][cnt[s] - 1],
               (long long)lat[s][cnt[s] / 2], (long long)lat[s][0]);
    }
    int alive = 0;
    for (int i = 0; i < N; i++) if (conns[i].state == 4) alive++;
    printf("Z %lld %ld %ld %lld %lld %lld %lld %d %lld\n", fr_count, fr_min, fr_max, fr_sum, n_dup,
           n_ooo, n_skipped, alive, n_dropped);
    printf("END\n");
    fflush(stdout);
    for (int i = 0; i < N; i++) if (conns[i].fd >= 0) close(conns[i].fd);
    return 0;
}
