// roofref: the C reference for ropgen calibrate's kernels (issue 10), built by
// TestCReference with gcc -O2 -march=native -fopenmp and run on all cores.
//
//   roofref fma32 MS [D]   12 independent ymm accumulators of _mm256_fmadd_ps for about MS ms
//   roofref fma64 MS [D]   the same with _mm256_fmadd_pd
//   roofref fma32z MS [D]  the same with 12 zmm accumulators of _mm512_fmadd_ps (AVX-512F)
//   roofref memcpy MIB     memcpy of MIB MiB per array, each thread its own part
//   roofref stream MIB     the same copy with _mm256_stream_ps stores (+ _mm_sfence)
//   roofref coldmemcpy MIB K EVMIB, coldstream MIB K EVMIB
//                          K cold copies, each one call timed after reading an EVMIB MiB
//                          buffer on every thread and CLFLUSHing both arrays (as ropbench
//                          times a row and calibrate its _cold mixes: perf/cold)
//
// Prints FLOP/s, or bytes/s counted as calibrate counts them (bytes read plus bytes written,
// no write-allocate): the best of 3 timed passes after a warm-up pass, or of the K cold
// copies. With D, the FMA run is a sequence of D ms parallel regions and two numbers are
// printed: the rate over all of them (sustained) and the fastest region's, which is what
// calibrate keeps (its multiply-add rounds are 2 ms dispatches, fastest kept); without D,
// one parallel region of MS ms and one number.
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

// FMA_BODY is 12 independent chains x_k = a*a + x_k. Each chain starts from its own value:
// twelve chains from one start compute the same numbers, and gcc -O2 merges them into one
// (one FMA an iteration, latency-bound), which made this loop claim 12x the work it did.

#define FMA_BODY(T, SET1, FMADD, ADD, STORE, LANES)                                    \
	T a = SET1(0.0009765625);                                                      \
	T x0 = SET1(0), x1 = SET1(1), x2 = SET1(2), x3 = SET1(3), x4 = SET1(4);        \
	T x5 = SET1(5), x6 = SET1(6), x7 = SET1(7), x8 = SET1(8), x9 = SET1(9);        \
	T x10 = SET1(10), x11 = SET1(11);                                              \
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

#ifdef __AVX512F__
static double fma32z(long iters) {
	float out[16];
	FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps, 16)
}
#endif

// span_begin and span_end bracket one thread's share of a parallel region: the region's time
// is from the first thread's start to the last one's end. A single clock read by the master
// after a barrier would start late whenever the master lost the CPU there while the other
// threads already worked (on a loaded machine, often), and overstate the rate.
static double span_lo, span_hi;

static void span_reset(void) {
	span_lo = 1e300;
	span_hi = 0;
}

static void span_add(double t0, double t1) {
#pragma omp critical(span)
	{
		if (t0 < span_lo) span_lo = t0;
		if (t1 > span_hi) span_hi = t1;
	}
}

// fma runs kernel on every thread for iters iterations and returns FLOP/s.
static double run_fma(double (*kernel)(long), long iters, int lanes) {
	int threads = 1;
	span_reset();
#pragma omp parallel
	{
#pragma omp single
		threads = omp_get_num_threads();
		double t0 = now();
		double s = kernel(iters);
		span_add(t0, now());
#pragma omp atomic
		sink += s;
	}
	return (double)threads * iters * 12 * lanes * 2 / (span_hi - span_lo);
}

// run_fma_dispatches runs kernel in parallel regions of iters iterations each until total
// seconds have passed, and stores the rate over all regions and the fastest region's.
static void run_fma_dispatches(double (*kernel)(long), long iters, int lanes, double total, double *sustained, double *fastest) {
	double spent = 0, best = 0, flops = 0;
	while (spent < total) {
		double r = run_fma(kernel, iters, lanes);
		int threads = omp_get_max_threads();
		double f = (double)threads * iters * 12 * lanes * 2;
		spent += f / r;
		flops += f;
		if (r > best) best = r;
	}
	*sustained = flops / spent;
	*fastest = best;
}

// stream_copy is the calibration's copyNT in C: 8 consecutive 4 KiB pages at once, each
// step loading its 64-byte line of all 8 before it streams any (storing each line right
// after its load moved about 0.8 of this: the lines alias in the low 12 address bits), the
// rest in order.
static void stream_copy(float *dst, const float *src, size_t n) {
	const size_t page = 1024, block = 8 * page; // floats
	size_t i = 0;
	for (; i + block <= n; i += block)
		for (size_t o = 0; o < page; o += 16) {
			const float *s = src + i + o;
			float *d = dst + i + o;
			// written out, so that the 16 vectors stay in registers
#define LD(p) __m256 a##p = _mm256_loadu_ps(s + p * page), b##p = _mm256_loadu_ps(s + p * page + 8)
#define ST(p) _mm256_stream_ps(d + p * page, a##p), _mm256_stream_ps(d + p * page + 8, b##p)
			LD(0); LD(1); LD(2); LD(3); LD(4); LD(5); LD(6); LD(7);
			ST(0); ST(1); ST(2); ST(3); ST(4); ST(5); ST(6); ST(7);
#undef LD
#undef ST
		}
	for (; i + 8 <= n; i += 8)
		_mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
	for (; i < n; i++) dst[i] = src[i];
	_mm_sfence();
}

// run_copy times reps copies of arrays of bytes each (stream: _mm256_stream_ps stores, else
// memcpy) after a warm-up copy, each thread copying the part it first touched, and returns the
// best rate. With evict > 0 every copy is cold: each thread reads its part of an evict-byte
// buffer, then both arrays are CLFLUSHed, untimed, as ropbench times a row.
static double run_copy(int stream, size_t bytes, int reps, size_t evict) {
	size_t n = bytes / sizeof(float);
	n &= ~(size_t)1023;
	float *a = aligned_alloc(64, n * sizeof(float)), *b = aligned_alloc(64, n * sizeof(float));
	unsigned char *ev = evict ? aligned_alloc(64, (evict + 63) & ~(size_t)63) : NULL;
	if (!a || !b || (evict && !ev)) {
		fprintf(stderr, "roofref: out of memory\n");
		exit(1);
	}
	if (evict) memset(ev, 1, evict);
	double best = 0;
	unsigned evsum = 0;
#pragma omp parallel reduction(+ : evsum)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = n / nt * t & ~(size_t)1023, hi = t == nt - 1 ? n : n / nt * (t + 1) & ~(size_t)1023;
		size_t elo = evict / nt * t & ~(size_t)63, ehi = t == nt - 1 ? evict : evict / nt * (t + 1) & ~(size_t)63;
		for (size_t i = lo; i < hi; i++) a[i] = 1, b[i] = 2; // first touch by the thread that copies
		for (int rep = 0; rep <= reps; rep++) {
			for (size_t i = elo; i < ehi; i += 64) evsum += ev[i];
#pragma omp barrier
#pragma omp master
			{
				if (evict) {
					for (size_t i = 0; i < n; i += 16) {
						_mm_clflush(a + i);
						_mm_clflush(b + i);
					}
					_mm_mfence();
				}
				span_reset();
			}
#pragma omp barrier
			double t0 = now();
			if (stream)
				stream_copy(b + lo, a + lo, hi - lo);
			else
				memcpy(b + lo, a + lo, (hi - lo) * sizeof(float));
			span_add(t0, now());
#pragma omp barrier
#pragma omp master
			{
				double r = 2.0 * n * sizeof(float) / (span_hi - span_lo);
				if (rep > 0 && r > best) best = r; // copy 0 warms
			}
		}
	}
	sink += b[n / 2] + evsum;
	free(a);
	free(b);
	free(ev);
	return best;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: roofref fma32|fma64|fma32z MS [D] | memcpy|stream MIB | coldmemcpy|coldstream MIB K EVMIB\n");
		return 2;
	}
	double arg = atof(argv[2]);
	if (!strcmp(argv[1], "fma32") || !strcmp(argv[1], "fma64") || !strcmp(argv[1], "fma32z")) {
		int is32 = argv[1][3] == '3', lanes = is32 ? 8 : 4;
		double (*k)(long) = is32 ? fma32 : fma64;
		if (!strcmp(argv[1], "fma32z")) {
#ifdef __AVX512F__
			k = fma32z, lanes = 16;
#else
			fprintf(stderr, "roofref: built without AVX-512F\n");
			return 3;
#endif
		}
		double ms = argc > 3 ? atof(argv[3]) : arg; // one region's length
		long iters = 1 << 16;
		double t0;
		for (;;) { // probe on one thread for the iteration count of MS ms
			t0 = now();
			sink += k(iters);
			double d = now() - t0;
			if (d > ms * 1e-3 / 20) {
				iters = (long)(iters * ms * 1e-3 / d);
				break;
			}
			iters *= 4;
		}
		if (argc > 3) {
			double sustained, fastest;
			run_fma_dispatches(k, iters, lanes, arg * 1e-3, &sustained, &fastest);
			printf("%.6e %.6e\n", sustained, fastest);
		} else {
			printf("%.6e\n", run_fma(k, iters, lanes));
		}
	} else if (!strcmp(argv[1], "memcpy") || !strcmp(argv[1], "stream")) {
		printf("%.6e\n", run_copy(argv[1][0] == 's', (size_t)(arg * 1048576), 3, 0));
	} else if ((!strcmp(argv[1], "coldmemcpy") || !strcmp(argv[1], "coldstream")) && argc == 5) {
		printf("%.6e\n", run_copy(argv[1][4] == 's', (size_t)(arg * 1048576), atoi(argv[3]), (size_t)(atof(argv[4]) * 1048576)));
	} else {
		fprintf(stderr, "roofref: unknown kernel %s\n", argv[1]);
		return 2;
	}
	return 0;
}
