// The C limits of `make compare` (cmd/ropcompare): the fastest this machine multiplies,
// reads and copies, on all its threads, timed the way the Go and numpy sides are timed.
// A worker over stdin/stdout (argument: the thread count, default all CPUs), one request
// per line:
//
//   fma                 -> "SECONDS FLOPS": one call of the FMA loop and the FLOPs it did
//   read BYTES          -> "SECONDS BYTES": one pass summing a BYTES buffer
//   copy BYTES          -> "SECONDS BYTES": one copy of BYTES/2 into BYTES/2 (BYTES moved),
//                          the faster of memcpy and a loop of streaming stores
//
// SECONDS is per call, the fastest of BATCHES batches each lasting at least TARGET_S (on a
// shared machine other jobs only ever add time). Buffers of a size
// are made (and touched) once and kept. Built by cmd/ropcompare with cc -O2 -march=native
// -pthread: GCC vector extensions become the widest vectors the CPU has (zmm with AVX-512)
// and a*b+c a fused multiply-add (-ffp-contract=fast, GCC's default).
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#define TARGET_S 0.02
#define BATCHES 3
#define LANES 16
typedef float vf __attribute__((vector_size(4 * LANES)));

static int nthreads;
static pthread_barrier_t start_bar, done_bar;
static volatile int job_kind; // 0 fma, 1 read, 2 copy (memcpy), 3 quit, 4 copy (streaming)
static char *buf_a, *buf_b;
static size_t buf_bytes;
static volatile float sink[64];

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define FMA_ITERS 200000L
#define FMA_ACCS 12
// One thread's share of the FMA loop: FMA_ACCS independent chains in registers, enough to
// cover the latency of two FMA ports.
static void fma_loop(int t) {
	vf x, y;
	for (int i = 0; i < LANES; i++) {
		x[i] = 0.999999f;
		y[i] = 1e-7f;
	}
	vf a0 = x, a1 = x * 2, a2 = x * 3, a3 = x * 4, a4 = x * 5, a5 = x * 6;
	vf a6 = x * 7, a7 = x * 8, a8 = x * 9, a9 = x * 10, a10 = x * 11, a11 = x * 12;
	for (long i = 0; i < FMA_ITERS; i++) {
		a0 = a0 * x + y; a1 = a1 * x + y; a2 = a2 * x + y; a3 = a3 * x + y;
		a4 = a4 * x + y; a5 = a5 * x + y; a6 = a6 * x + y; a7 = a7 * x + y;
		a8 = a8 * x + y; a9 = a9 * x + y; a10 = a10 * x + y; a11 = a11 * x + y;
	}
	vf s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
	sink[t] = s[0];
}

static void span(int t, size_t n, size_t *lo, size_t *hi) {
	size_t chunk = (n / nthreads) & ~(size_t)255;
	*lo = t * chunk;
	*hi = t == nthreads - 1 ? n : (t + 1) * chunk;
}

// The loops below walk PAGES 4 KiB pages of a thread's span at once, one line of each in
// turn: a core's hardware prefetcher follows each page as its own stream and runs only so
// far ahead in each, so one page at a time reads about 0.7 of what 8 at once do on the
// 2-core host (glibc's memcpy interleaves pages for the same reason). A limit below what a
// kernel reaches is no limit: the read loop of one stream read 0.93x of gemv's rate.
#define PAGES 8 // read_loop has one accumulator per page
#define PAGE 4096

static void read_loop(int t) {
	size_t lo, hi;
	span(t, buf_bytes, &lo, &hi);
	const char *p = buf_a + lo, *e = buf_a + hi;
	vf s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0}, s4 = {0}, s5 = {0}, s6 = {0}, s7 = {0};
	for (; p + PAGES * PAGE <= e; p += PAGES * PAGE)
		for (size_t o = 0; o < PAGE; o += 64) {
			// one accumulator per page, in registers (an array would live in memory)
			s0 += *(const vf *)(p + o);
			s1 += *(const vf *)(p + PAGE + o);
			s2 += *(const vf *)(p + 2 * PAGE + o);
			s3 += *(const vf *)(p + 3 * PAGE + o);
			s4 += *(const vf *)(p + 4 * PAGE + o);
			s5 += *(const vf *)(p + 5 * PAGE + o);
			s6 += *(const vf *)(p + 6 * PAGE + o);
			s7 += *(const vf *)(p + 7 * PAGE + o);
		}
	for (; p + sizeof(vf) <= e; p += sizeof(vf))
		s0 += *(const vf *)p;
	vf sum = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
	sink[t] = sum[0];
}

// line is one 64-byte line in registers, streamed with the widest stores the CPU has (a
// plain copy where it has none).
#if defined(__AVX512F__)
typedef struct { __m512 a; } line;
static inline line load_line(const char *p) { return (line){_mm512_load_ps((const float *)p)}; }
static inline void stream_line(char *q, line v) { _mm512_stream_ps((float *)q, v.a); }
#elif defined(__AVX__)
typedef struct { __m256 a, b; } line;
static inline line load_line(const char *p) { return (line){_mm256_load_ps((const float *)p), _mm256_load_ps((const float *)p + 8)}; }
static inline void stream_line(char *q, line v) { _mm256_stream_ps((float *)q, v.a); _mm256_stream_ps((float *)q + 8, v.b); }
#elif defined(__SSE2__)
typedef struct { __m128 a, b, c, d; } line;
static inline line load_line(const char *p) {
	const float *f = (const float *)p;
	return (line){_mm_load_ps(f), _mm_load_ps(f + 4), _mm_load_ps(f + 8), _mm_load_ps(f + 12)};
}
static inline void stream_line(char *q, line v) {
	float *f = (float *)q;
	_mm_stream_ps(f, v.a); _mm_stream_ps(f + 4, v.b); _mm_stream_ps(f + 8, v.c); _mm_stream_ps(f + 12, v.d);
}
#else
typedef struct { char b[64]; } line;
static inline line load_line(const char *p) { line v; memcpy(v.b, p, 64); return v; }
static inline void stream_line(char *q, line v) { memcpy(q, v.b, 64); }
#endif

// copy_loop is glibc's memcpy (kind 2) or the page-interleaved loop of streaming stores
// (kind 4); the copy limit is the faster of the two. Each step of the loop loads its line
// of all PAGES pages before it streams any of them: streaming each line right after its
// load moved 0.81-0.82 of that and 0.83 of glibc's memcpy, which the grouped loop beats by
// 1.13-1.16x (cc -O2 loops over 64 MiB, 15 interleaved rounds, one thread and two, on the
// 2-core Ice Lake host). The copy is the limit of the two-input rows too (add): a loop
// y = a + b of the same form (both inputs' line of every page loaded, added, then streamed;
// 8 pages or 4, zmm or ymm) moved 0.90-0.93 of this loop's bytes per second, counting its
// three arrays' (3 x 64 MiB, 11 interleaved rounds, one thread and two, two runs).
static void copy_loop(int t, int kind) {
	size_t half = buf_bytes / 2, lo, hi;
	span(t, half, &lo, &hi);
	if (kind == 2) {
		memcpy(buf_b + lo, buf_a + lo, hi - lo);
		return;
	}
	const char *p = buf_a + lo, *e = buf_a + hi;
	char *q = buf_b + lo;
	for (; p + PAGES * PAGE <= e; p += PAGES * PAGE, q += PAGES * PAGE)
		for (size_t o = 0; o < PAGE; o += 64) {
			// written out, so that the lines stay in registers (PAGES is 8)
			const char *s = p + o;
			char *d = q + o;
			line v0 = load_line(s), v1 = load_line(s + PAGE), v2 = load_line(s + 2 * PAGE),
			     v3 = load_line(s + 3 * PAGE), v4 = load_line(s + 4 * PAGE),
			     v5 = load_line(s + 5 * PAGE), v6 = load_line(s + 6 * PAGE),
			     v7 = load_line(s + 7 * PAGE);
			stream_line(d, v0);
			stream_line(d + PAGE, v1);
			stream_line(d + 2 * PAGE, v2);
			stream_line(d + 3 * PAGE, v3);
			stream_line(d + 4 * PAGE, v4);
			stream_line(d + 5 * PAGE, v5);
			stream_line(d + 6 * PAGE, v6);
			stream_line(d + 7 * PAGE, v7);
		}
#if defined(__SSE2__)
	_mm_sfence();
#endif
	memcpy(q, p, e - p);
}

static void run_job(int t) {
	switch (job_kind) {
	case 0: fma_loop(t); break;
	case 1: read_loop(t); break;
	case 2:
	case 4: copy_loop(t, job_kind); break;
	}
}

static void *worker(void *arg) {
	int t = (int)(long)arg;
	for (;;) {
		pthread_barrier_wait(&start_bar);
		if (job_kind == 3)
			return NULL;
		run_job(t);
		pthread_barrier_wait(&done_bar);
	}
}

static void call(int kind) {
	job_kind = kind;
	pthread_barrier_wait(&start_bar);
	run_job(0);
	pthread_barrier_wait(&done_bar);
}

static void ensure(size_t bytes) {
	if (bytes == buf_bytes)
		return;
	free(buf_a);
	free(buf_b);
	bytes = (bytes + 1023) & ~(size_t)1023;
	if (posix_memalign((void **)&buf_a, 64, bytes) || posix_memalign((void **)&buf_b, 64, bytes)) {
		fprintf(stderr, "limits: cannot allocate %zu bytes\n", bytes);
		exit(1);
	}
	// Ordinary floats (bytes counting up would make subnormals, whose adds take microcode
	// assists on some CPUs and would slow the read loop for a reason no kernel shares).
	for (size_t i = 0; i < bytes / 4; i++) {
		((float *)buf_a)[i] = 1.0f + (float)(i & 1023) * 0x1p-20f;
		((float *)buf_b)[i] = 0;
	}
	buf_bytes = bytes;
}

static double batch(int kind, long n) {
	double t0 = now();
	for (long i = 0; i < n; i++)
		call(kind);
	return now() - t0;
}

// per_call grows a batch of calls of kind until it lasts TARGET_S, then returns the seconds
// per call of the fastest of BATCHES such batches.
static double per_call(int kind) {
	long n = 1;
	double d;
	for (;;) {
		d = batch(kind, n);
		if (d >= TARGET_S)
			break;
		long next = d > 0 ? (long)(n * 1.2 * TARGET_S / d) + 1 : n * 100;
		n = next > n * 100 ? n * 100 : (next > n ? next : n + 1);
	}
	for (int i = 1; i < BATCHES; i++) {
		double e = batch(kind, n);
		if (e < d)
			d = e;
	}
	return d / n;
}

int main(int argc, char **argv) {
	nthreads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (nthreads < 1)
		nthreads = 1;
	pthread_barrier_init(&start_bar, NULL, nthreads);
	pthread_barrier_init(&done_bar, NULL, nthreads);
	pthread_t th[256];
	for (int t = 1; t < nthreads && t < 256; t++)
		pthread_create(&th[t], NULL, worker, (void *)(long)t);
	char line[256];
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		char kind[32];
		long long bytes = 0;
		if (sscanf(line, "%31s %lld", kind, &bytes) < 1)
			continue;
		if (strcmp(kind, "fma") == 0) {
			double s = per_call(0);
			printf("%.9g %.9g\n", s, 2.0 * FMA_ITERS * FMA_ACCS * LANES * nthreads);
		} else if ((strcmp(kind, "read") == 0 || strcmp(kind, "copy") == 0) && bytes > 0) {
			ensure((size_t)bytes);
			double s = per_call(kind[0] == 'r' ? 1 : 2);
			if (kind[0] == 'c') {
				double nt = per_call(4);
				s = nt < s ? nt : s;
			}
			printf("%.9g %.9g\n", s, (double)buf_bytes);
		} else {
			printf("error: unknown request %s", line);
		}
	}
	job_kind = 3;
	pthread_barrier_wait(&start_bar);
	return 0;
}
