// roofref: the C reference for ropgen calibrate's kernels (issue 10), built by
// TestCReference with gcc -O2 -march=native -fopenmp and run on all cores.
//
//   roofref fma32 MS     12 independent ymm accumulators of _mm256_fmadd_ps for about MS ms
//   roofref fma64 MS     the same with _mm256_fmadd_pd
//   roofref memcpy MIB   memcpy of MIB MiB per array, each thread its own part
//   roofref stream MIB   the same copy with _mm256_stream_ps stores (+ _mm_sfence)
//
// Prints one number: FLOP/s, or bytes/s counted as calibrate counts them (bytes read plus
// bytes written, no write-allocate), the best of 3 timed passes after a warm-up pass.
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile double sink;

#define FMA_BODY(T, SET1, FMADD, ADD, STORE, LANES)                                    \
	T a = SET1(0.0009765625);                                                      \
	T x0 = SET1(0), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0, x7 = x0; \
	T x8 = x0, x9 = x0, x10 = x0, x11 = x0;                                        \
	for (long i = 0; i < iters; i++) {                                             \
		x0 = FMADD(a, a, x0); x1 = FMADD(a, a, x1); x2 = FMADD(a, a, x2);          \
		x3 = FMADD(a, a, x3); x4 = FMADD(a, a, x4); x5 = FMADD(a, a, x5);          \
		x6 = FMADD(a, a, x6); x7 = FMADD(a, a, x7); x8 = FMADD(a, a, x8);          \
		x9 = FMADD(a, a, x9); x10 = FMADD(a, a, x10); x11 = FMADD(a, a, x11);      \
	}                                                                              \
	x0 = ADD(ADD(ADD(x0, x1), ADD(x2, x3)), ADD(ADD(x4, x5), ADD(x6, x7)));        \
	x0 = ADD(x0, ADD(ADD(x8, x9), ADD(x10, x11)));                                 \
	STORE(out, x0);                                                                \
	double s = 0;                                                                  \
	for (int k = 0; k < LANES; k++) s += out[k];                                   \
	return s;

static double fma32(long iters) {
	float out[8];
	FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps, 8)
}

static double fma64(long iters) {
	double out[4];
	FMA_BODY(__m256d, _mm256_set1_pd, _mm256_fmadd_pd, _mm256_add_pd, _mm256_storeu_pd, 4)
}

// fma runs kernel on every thread for iters iterations and returns FLOP/s.
static double run_fma(double (*kernel)(long), long iters, int lanes) {
	double t0 = 0, t1 = 0;
	int threads = 1;
#pragma omp parallel
	{
#pragma omp single
		threads = omp_get_num_threads();
#pragma omp barrier
#pragma omp master
		t0 = now();
		double s = kernel(iters);
#pragma omp atomic
		sink += s;
#pragma omp barrier
#pragma omp master
		t1 = now();
	}
	return (double)threads * iters * 12 * lanes * 2 / (t1 - t0);
}

static void stream_copy(float *dst, const float *src, size_t n) {
	size_t i = 0;
	for (; i + 32 <= n; i += 32) {
		__m256 a = _mm256_loadu_ps(src + i), b = _mm256_loadu_ps(src + i + 8);
		__m256 c = _mm256_loadu_ps(src + i + 16), d = _mm256_loadu_ps(src + i + 24);
		_mm256_stream_ps(dst + i, a);
		_mm256_stream_ps(dst + i + 8, b);
		_mm256_stream_ps(dst + i + 16, c);
		_mm256_stream_ps(dst + i + 24, d);
	}
	for (; i < n; i++) dst[i] = src[i];
	_mm_sfence();
}

static double run_copy(int stream, size_t bytes) {
	size_t n = bytes / sizeof(float);
	n &= ~(size_t)1023;
	float *a = aligned_alloc(64, n * sizeof(float)), *b = aligned_alloc(64, n * sizeof(float));
	if (!a || !b) {
		fprintf(stderr, "roofref: out of memory\n");
		exit(1);
	}
	double best = 0;
#pragma omp parallel
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = n / nt * t & ~(size_t)1023, hi = t == nt - 1 ? n : n / nt * (t + 1) & ~(size_t)1023;
		for (size_t i = lo; i < hi; i++) a[i] = 1, b[i] = 2; // first touch by the thread that copies
		for (int rep = 0; rep < 4; rep++) {
			double t0 = 0;
#pragma omp barrier
#pragma omp master
			t0 = now();
			if (stream)
				stream_copy(b + lo, a + lo, hi - lo);
			else
				memcpy(b + lo, a + lo, (hi - lo) * sizeof(float));
#pragma omp barrier
#pragma omp master
			{
				double r = 2.0 * n * sizeof(float) / (now() - t0);
				if (rep > 0 && r > best) best = r; // pass 0 warms
			}
		}
	}
	sink += b[n / 2];
	free(a);
	free(b);
	return best;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: roofref fma32|fma64 MS | memcpy|stream MIB\n");
		return 2;
	}
	double arg = atof(argv[2]);
	if (!strcmp(argv[1], "fma32") || !strcmp(argv[1], "fma64")) {
		int is32 = argv[1][3] == '3';
		double (*k)(long) = is32 ? fma32 : fma64;
		long iters = 1 << 16;
		double t0;
		for (;;) { // probe on one thread for the iteration count of MS ms
			t0 = now();
			sink += k(iters);
			double d = now() - t0;
			if (d > arg * 1e-3 / 20) {
				iters = (long)(iters * arg * 1e-3 / d);
				break;
			}
			iters *= 4;
		}
		printf("%.6e\n", run_fma(k, iters, is32 ? 8 : 4));
	} else if (!strcmp(argv[1], "memcpy") || !strcmp(argv[1], "stream")) {
		printf("%.6e\n", run_copy(argv[1][0] == 's', (size_t)(arg * 1048576)));
	} else {
		fprintf(stderr, "roofref: unknown kernel %s\n", argv[1]);
		return 2;
	}
	return 0;
}
