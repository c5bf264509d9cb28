// The C limits of `make compare` (cmd/ropcompare): the fastest this machine multiplies,
// reads and copies, on all its threads, timed the way the Go and numpy sides are timed.
// A worker over stdin/stdout (argument: the thread count, default all CPUs), one request
// per line:
//
//   fma                 -> "SECONDS FLOPS": one call of the FMA loop and the FLOPs it did
//   read BYTES          -> "SECONDS BYTES": one pass summing a BYTES buffer
//   copy BYTES          -> "SECONDS BYTES": one copy of BYTES/2 into BYTES/2 (BYTES moved),
//                          the faster of memcpy and a loop of streaming stores
//   units               -> the unit loops compiled in, space-separated (see unit_names)
//   unit NAME MS        -> "SECONDS FLOPS": the fastest of the calls of about 2 ms that the
//                          unit loop NAME makes in MS milliseconds, on all threads: the
//                          statistic the calibration keeps for a compute roof (its fastest
//                          dispatch), so that the two compare like for like
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
static volatile int job_kind; // 0 fma, 1 read, 2 copy (memcpy), 3 quit, 4 copy (streaming), 5 unit
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
// One thread's share of the FMA loop, n iterations: FMA_ACCS independent chains in
// registers, enough to cover the latency of two FMA ports (each a = a*x + y, distinct
// starting values: equal chains, or a product of constants, would be folded by the compiler).
static void fma_chains(int t, long n) {
	vf x, y;
	for (int i = 0; i < LANES; i++) {
		x[i] = 0.999999f;
		y[i] = 1e-7f;
	}
	vf a0 = x, a1 = x * 2, a2 = x * 3, a3 = x * 4, a4 = x * 5, a5 = x * 6;
	vf a6 = x * 7, a7 = x * 8, a8 = x * 9, a9 = x * 10, a10 = x * 11, a11 = x * 12;
	for (long i = 0; i < n; i++) {
		a0 = a0 * x + y; a1 = a1 * x + y; a2 = a2 * x + y; a3 = a3 * x + y;
		a4 = a4 * x + y; a5 = a5 * x + y; a6 = a6 * x + y; a7 = a7 * x + y;
		a8 = a8 * x + y; a9 = a9 * x + y; a10 = a10 * x + y; a11 = a11 * x + y;
	}
	vf s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
	sink[t] = s[0];
}

static void fma_loop(int t) { fma_chains(t, FMA_ITERS); }

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


// The unit loops: the intrinsics a C programmer reaches the calibration's compute roofs with,
// 12 independent accumulators of the widest vectors (4 tiles for AMX), each compiled only
// where the compiler targets the instructions (-march=native on a CPU that has them). FLOPs
// a call: iterations x accumulators x multiply-adds an instruction x 2.
static volatile long unit_iters;
static volatile int unit_kind;

#if defined(__AVX512BF16__)
static void unit_dpbf16(int t, long n) {
	__m512bh a = (__m512bh)_mm512_set1_epi32(0x3a803a80); // bf16 pairs of 2^-10
	// distinct starting values: equal chains would be one chain to the compiler
	__m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3);
	__m512 a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7);
	__m512 a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11);
	for (long i = 0; i < n; i++) {
		a0 = _mm512_dpbf16_ps(a0, a, a); a1 = _mm512_dpbf16_ps(a1, a, a);
		a2 = _mm512_dpbf16_ps(a2, a, a); a3 = _mm512_dpbf16_ps(a3, a, a);
		a4 = _mm512_dpbf16_ps(a4, a, a); a5 = _mm512_dpbf16_ps(a5, a, a);
		a6 = _mm512_dpbf16_ps(a6, a, a); a7 = _mm512_dpbf16_ps(a7, a, a);
		a8 = _mm512_dpbf16_ps(a8, a, a); a9 = _mm512_dpbf16_ps(a9, a, a);
		a10 = _mm512_dpbf16_ps(a10, a, a); a11 = _mm512_dpbf16_ps(a11, a, a);
	}
	__m512 s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
	sink[t] = s[0];
}
#endif

#if defined(__AVX512FP16__)
static void unit_fmaph(int t, long n) {
	__m512h a = _mm512_set1_ph((_Float16)1.0f);
	// distinct starting values: equal chains would be one chain to the compiler
	__m512h a0 = _mm512_set1_ph(0), a1 = _mm512_set1_ph(1), a2 = _mm512_set1_ph(2), a3 = _mm512_set1_ph(3);
	__m512h a4 = _mm512_set1_ph(4), a5 = _mm512_set1_ph(5), a6 = _mm512_set1_ph(6), a7 = _mm512_set1_ph(7);
	__m512h a8 = _mm512_set1_ph(8), a9 = _mm512_set1_ph(9), a10 = _mm512_set1_ph(10), a11 = _mm512_set1_ph(11);
	for (long i = 0; i < n; i++) {
		a0 = _mm512_fmadd_ph(a, a, a0); a1 = _mm512_fmadd_ph(a, a, a1);
		a2 = _mm512_fmadd_ph(a, a, a2); a3 = _mm512_fmadd_ph(a, a, a3);
		a4 = _mm512_fmadd_ph(a, a, a4); a5 = _mm512_fmadd_ph(a, a, a5);
		a6 = _mm512_fmadd_ph(a, a, a6); a7 = _mm512_fmadd_ph(a, a, a7);
		a8 = _mm512_fmadd_ph(a, a, a8); a9 = _mm512_fmadd_ph(a, a, a9);
		a10 = _mm512_fmadd_ph(a, a, a10); a11 = _mm512_fmadd_ph(a, a, a11);
	}
	__m512h s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
	sink[t] = (float)s[0];
}
#endif

#if defined(__AMX_TILE__) && defined(__linux__)
#include <sys/syscall.h>
// Linux grants the tile data state only on request (arch_prctl ARCH_REQ_XCOMP_PERM,
// XFEATURE_XTILEDATA); the request is the process's, for every thread. The tile loops
// compile with -mamx-tile and -mamx-bf16 or -mamx-int8, and run only where the CPU exposes
// the tiles (docs/history.md has such a run).
static int amx_ready = -1;
static int amx_request(void) {
	if (amx_ready < 0)
		amx_ready = syscall(SYS_arch_prctl, 0x1023, 18) == 0;
	return amx_ready;
}

// amx_tiles configures the tile loops' 8 tiles of 16 rows x 64 bytes, loads the operand
// tiles tmm4-tmm7 from a (16 rows of 64 bytes) and zeroes the accumulators tmm0-tmm3.
static void __attribute__((unused)) amx_tiles(const void *a) {
	static __thread unsigned char cfg[64] __attribute__((aligned(64)));
	memset(cfg, 0, sizeof cfg);
	cfg[0] = 1;
	for (int i = 0; i < 8; i++) {
		cfg[16 + 2 * i] = 64;
		cfg[48 + i] = 16;
	}
	_tile_loadconfig(cfg);
	_tile_loadd(4, a, 64); _tile_loadd(5, a, 64); _tile_loadd(6, a, 64); _tile_loadd(7, a, 64);
	_tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
}
#endif

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__linux__)
static void unit_tdpbf16(int t, long n) {
	static __thread unsigned short a[512] __attribute__((aligned(64))); // 16 rows x 64 bytes
	static __thread float out[256] __attribute__((aligned(64)));
	for (int i = 0; i < 512; i++)
		a[i] = 0x3a80;
	amx_tiles(a);
	for (long i = 0; i < n; i++) {
		_tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7);
		_tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
	}
	_tile_stored(0, out, 64);
	_tile_release();
	sink[t] = out[0];
}
#endif

#if defined(__AMX_TILE__) && defined(__AMX_INT8__) && defined(__linux__)
// unit_tdpbssd is unit_tdpbf16 for int8 tiles (TDPBSSD: signed by signed bytes, int32 sums),
// its operands bytes of 1: each sum gains 64 a tile multiply, far inside int32 in a call of
// milliseconds.
static void unit_tdpbssd(int t, long n) {
	static __thread signed char a[1024] __attribute__((aligned(64))); // 16 rows x 64 bytes
	static __thread int out[256] __attribute__((aligned(64)));
	memset(a, 1, sizeof a);
	amx_tiles(a);
	for (long i = 0; i < n; i++) {
		_tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7);
		_tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
	}
	_tile_stored(0, out, 64);
	_tile_release();
	sink[t] = (float)out[0];
}
#endif

struct unit {
	const char *name;
	void (*loop)(int, long);
	double flops_per_iter; // all accumulators of one thread
};
static const struct unit units[] = {
	{"fma32", fma_chains, FMA_ACCS * LANES * 2.0},
#if defined(__AVX512BF16__)
	{"dpbf16", unit_dpbf16, 12.0 * 32 * 2},
#endif
#if defined(__AVX512FP16__)
	{"fmaph", unit_fmaph, 12.0 * 32 * 2},
#endif
#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__linux__)
	{"tdpbf16", unit_tdpbf16, 4.0 * 16 * 16 * 32 * 2},
#endif
#if defined(__AMX_TILE__) && defined(__AMX_INT8__) && defined(__linux__)
	{"tdpbssd", unit_tdpbssd, 4.0 * 16 * 16 * 64 * 2},
#endif
};
#define NUNITS (int)(sizeof units / sizeof units[0])

static void run_job(int t) {
	switch (job_kind) {
	case 0: fma_loop(t); break;
	case 1: read_loop(t); break;
	case 2:
	case 4: copy_loop(t, job_kind); break;
	case 5: units[unit_kind].loop(t, unit_iters); break;
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


// unit_peak answers "unit NAME MS": it grows a call of the loop to about 2 ms, then returns
// the fastest call made in MS milliseconds.
static void unit_peak(const char *name, long ms) {
	int k = -1;
	for (int i = 0; i < NUNITS; i++)
		if (strcmp(units[i].name, name) == 0)
			k = i;
	if (k < 0) {
		printf("error: unit %s is not compiled in (no compiler or CPU support for its instructions)\n", name);
		return;
	}
#if defined(__AMX_TILE__) && defined(__linux__)
	if (strncmp(name, "tdp", 3) == 0 && !amx_request()) { // the tile loops
		printf("error: Linux refused the AMX tile data permission\n");
		return;
	}
#endif
	unit_kind = k;
	unit_iters = 1024;
	double d;
	for (;;) {
		d = 1e30; // the fastest of three calls: a call that lost its CPU would stop the growth
		for (int i = 0; i < 3; i++) {
			double t0 = now();
			call(5);
			double e = now() - t0;
			d = e < d ? e : d;
		}
		if (d >= 1e-3 || unit_iters >= 1L << 40)
			break;
		unit_iters *= 2;
	}
	unit_iters = (long)(unit_iters * 2e-3 / d) + 1;
	double best = 1e30, end = now() + ms * 1e-3;
	do {
		double t0 = now();
		call(5);
		double e = now() - t0;
		best = e < best ? e : best;
	} while (now() < end);
	printf("%.9g %.9g\n", best, units[k].flops_per_iter * unit_iters * nthreads);
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
		} else if (strcmp(kind, "units") == 0) {
			for (int i = 0; i < NUNITS; i++)
				printf("%s%s", i ? " " : "", units[i].name);
			printf("\n");
		} else if (strcmp(kind, "unit") == 0) {
			char name[32];
			long ms = 200;
			if (sscanf(line, "%*s %31s %ld", name, &ms) < 1)
				printf("error: unit NAME MS\n");
			else
				unit_peak(name, ms);
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
