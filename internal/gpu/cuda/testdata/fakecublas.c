/*
 * A fake libcublas.so.13 for internal/gpu/cuda's tests, loaded after the
 * fake libcuda.so.1 (RTLD_GLOBAL), whose helpers it calls to check pointers
 * and contexts. cublasGemmEx checks all 19 arguments: a live handle of the
 * current context, its stream, CUBLAS_OP_N, positive sizes, alpha = 1 and
 * beta = 0 read through their pointers in the compute type's width, device
 * ranges inside allocations, matching element types, leading dimensions,
 * a compute type that fits the element type and CUBLAS_GEMM_DEFAULT. It
 * computes fp32, tf32 (as fp32), bf16, fp16 and fp64 products for real, so a
 * test can check C against its own arithmetic. fake_cublas_last() describes
 * the last product's arguments. On the fake libcuda's virtual clock
 * (fake_cuda_set("vclock", 1)) a product of 2·m·n·k FLOP takes that many
 * FLOP ÷ a rate in FLOP/ns: fp32 256, tf32 1024, bf16 and fp16 2048, fp64 128
 * (0.256, 1.024, 2.048 and 0.128 TFLOP/s).
 *
 * Built with -DCUDA_MAJOR=12 it is a cuBLAS 12.9.1 (libcublas.so.12);
 * otherwise cuBLAS 13.1.0. Like the real one, whose CUDA runtime is linked
 * in, cublasCreate_v2 fails with CUBLAS_STATUS_NOT_INITIALIZED on a driver
 * that does not support its CUDA major release (the fake libcuda's
 * "driver"): it loads fine, then cannot start. fake_cublas_set("create_rc",
 * rc) makes cublasCreate_v2 answer rc (a cuBLAS that fails for another
 * reason), "reset" undoes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef CUDA_MAJOR
#define CUDA_MAJOR 13
#endif

typedef int cublasStatus_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, INVALID_VALUE = 7, EXECUTION_FAILED = 13, NOT_SUPPORTED = 15 };

/* From the fake libcuda. */
int fake_cuda_range_ok(unsigned long long p, size_t n, int kind);
int fake_cuda_stream_ok(unsigned long long s);
int fake_cuda_ctx_current(void);
long fake_cuda_get(const char *key);
void fake_cuda_spend(double ns);
int cuCtxGetCurrent(void **c);

struct handle { int alive; void *ctx; unsigned long long stream; };
static struct handle handles[8];
static int bad, create_rc;
static char lastbad[256], last[512];

static cublasStatus_t fail(const char *fn, const char *why, cublasStatus_t rc) {
	bad++;
	snprintf(lastbad, sizeof lastbad, "%s: %s", fn, why);
	return rc;
}
int fake_cublas_bad(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", lastbad); return bad; }
int fake_cublas_last(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", last); return 0; }
int fake_cublas_live(void) { int n = 0; for (int i = 0; i < 8; i++) n += handles[i].alive; return n; }
int fake_cublas_set(const char *key, int v) {
	if (!strcmp(key, "create_rc")) create_rc = v;
	else if (!strcmp(key, "reset")) create_rc = bad = 0, lastbad[0] = 0;
	else return -1;
	return 0;
}

static struct handle *get(struct handle *h) {
	void *c = NULL;
	cuCtxGetCurrent(&c);
	if (h < handles || h >= handles + 8 || !h->alive || h->ctx != c) return NULL;
	return h;
}

cublasStatus_t cublasCreate_v2(struct handle **h) {
	if (!h) return fail("cublasCreate_v2", "NULL handle pointer", INVALID_VALUE);
	if (!fake_cuda_ctx_current()) return fail("cublasCreate_v2", "no current context", NOT_INITIALIZED);
	if (fake_cuda_get("driver") < CUDA_MAJOR * 1000) return NOT_INITIALIZED; /* cudaErrorInsufficientDriver inside */
	if (create_rc) return create_rc;
	for (int i = 0; i < 8; i++)
		if (!handles[i].alive) {
			handles[i].alive = 1;
			cuCtxGetCurrent(&handles[i].ctx);
			handles[i].stream = 0;
			*h = &handles[i];
			return SUCCESS;
		}
	return 3; /* ALLOC_FAILED */
}
cublasStatus_t cublasDestroy_v2(struct handle *h) {
	if (!get(h)) return fail("cublasDestroy_v2", "not a live handle of this context", NOT_INITIALIZED);
	h->alive = 0;
	return SUCCESS;
}
cublasStatus_t cublasSetStream_v2(struct handle *h, unsigned long long s) {
	if (!get(h)) return fail("cublasSetStream_v2", "not a live handle of this context", NOT_INITIALIZED);
	if (!fake_cuda_stream_ok(s)) return fail("cublasSetStream_v2", "stream not of this context", INVALID_VALUE);
	h->stream = s;
	return SUCCESS;
}
cublasStatus_t cublasSetMathMode(struct handle *h, int mode) {
	if (!get(h)) return fail("cublasSetMathMode", "not a live handle of this context", NOT_INITIALIZED);
	if (mode < 0 || mode > 3) return fail("cublasSetMathMode", "unknown math mode", INVALID_VALUE);
	return SUCCESS;
}
cublasStatus_t cublasGetProperty(int type, int *v) {
	static const int ver[3] = {CUDA_MAJOR, CUDA_MAJOR == 12 ? 9 : 1, CUDA_MAJOR == 12 ? 1 : 0};
	if (type < 0 || type > 2 || !v) return fail("cublasGetProperty", "bad arguments", INVALID_VALUE);
	*v = ver[type];
	return SUCCESS;
}

static size_t esize(int t) {
	switch (t) {
	case 0: return 4;  /* CUDA_R_32F */
	case 1: return 8;  /* CUDA_R_64F */
	case 2: return 2;  /* CUDA_R_16F */
	case 14: return 2; /* CUDA_R_16BF */
	}
	return 0;
}
static float bf16(uint16_t v) { uint32_t u = (uint32_t)v << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t tobf16(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16); }
/* IEEE half precision, widened exactly and rounded to nearest even. */
static float half(uint16_t h) {
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, u;
	float f;
	if (e == 0) { f = (float)m / 16777216.0f; return sign ? -f : f; } /* m × 2^-24 */
	u = e == 31 ? sign | 0x7f800000 | m << 13 : sign | (e - 15 + 127) << 23 | m << 13;
	memcpy(&f, &u, 4);
	return f;
}
static uint16_t tohalf(float f) {
	uint32_t u, m, q, r, hb;
	memcpy(&u, &f, 4);
	uint16_t sign = (u >> 16) & 0x8000;
	int fe = (u >> 23) & 0xff, e = fe - 127 + 15, sh;
	m = u & 0x7fffff;
	if (fe == 0xff) return sign | 0x7c00 | (m ? 0x200 : 0);
	if (e >= 31) return sign | 0x7c00;
	if (e <= 0) {
		if (e < -10) return sign;
		m |= 0x800000;
		sh = 14 - e;
	} else sh = 13;
	q = m >> sh; r = m & ((1u << sh) - 1); hb = 1u << (sh - 1);
	if (r > hb || (r == hb && (q & 1))) q++;
	return e <= 0 ? sign | (uint16_t)q : sign | (uint16_t)(((uint32_t)e << 10) + q);
}

#define DEVMEM 3
cublasStatus_t cublasGemmEx(struct handle *h, int transa, int transb, int m, int n, int k,
                            const void *alpha, const void *A, int atype, int lda,
                            const void *B, int btype, int ldb, const void *beta,
                            void *C, int ctype, int ldc, int compute, int algo) {
	const char *fn = "cublasGemmEx";
	if (!get(h)) return fail(fn, "not a live handle of this context", NOT_INITIALIZED);
	if (!h->stream) return fail(fn, "handle has no stream set (gpuscout times its own stream)", INVALID_VALUE);
	if (transa != 0 || transb != 0) return fail(fn, "transa/transb not CUBLAS_OP_N", INVALID_VALUE);
	if (m <= 0 || n <= 0 || k <= 0) return fail(fn, "m, n, k must be positive", INVALID_VALUE);
	if (!alpha || !beta) return fail(fn, "NULL alpha or beta", INVALID_VALUE);
	if (atype != btype || btype != ctype || !esize(atype)) return fail(fn, "element types differ or unknown", INVALID_VALUE);
	int okc = (atype == 0 && (compute == 68 || compute == 77)) || (atype == 1 && compute == 70) ||
	          ((atype == 2 || atype == 14) && compute == 68);
	if (!okc) return fail(fn, "compute type does not fit the element type", INVALID_VALUE);
	double a, b;
	if (compute == 70) { a = *(const double *)alpha; b = *(const double *)beta; }
	else { a = *(const float *)alpha; b = *(const float *)beta; }
	if (a != 1 || b != 0) return fail(fn, "alpha != 1 or beta != 0 (read in the compute type)", INVALID_VALUE);
	if (lda < m || ldb < k || ldc < m) return fail(fn, "leading dimension too small", INVALID_VALUE);
	if (algo != -1) return fail(fn, "algo is not CUBLAS_GEMM_DEFAULT", INVALID_VALUE);
	size_t es = esize(atype);
	if (!fake_cuda_range_ok((uintptr_t)A, (size_t)lda * k * es, DEVMEM) ||
	    !fake_cuda_range_ok((uintptr_t)B, (size_t)ldb * n * es, DEVMEM) ||
	    !fake_cuda_range_ok((uintptr_t)C, (size_t)ldc * n * es, DEVMEM))
		return fail(fn, "A, B or C outside device allocations of this context", INVALID_VALUE);
	snprintf(last, sizeof last, "transa=%d transb=%d m=%d n=%d k=%d alpha=%g atype=%d lda=%d btype=%d ldb=%d "
	         "beta=%g ctype=%d ldc=%d compute=%d algo=%d", transa, transb, m, n, k, a, atype, lda, btype, ldb,
	         b, ctype, ldc, compute, algo);
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			double s = 0;
			for (int l = 0; l < k; l++) {
				size_t ai = (size_t)l * lda + i, bi = (size_t)j * ldb + l;
				switch (atype) {
				case 0: s += (double)((const float *)A)[ai] * ((const float *)B)[bi]; break;
				case 1: s += ((const double *)A)[ai] * ((const double *)B)[bi]; break;
				case 14: s += (double)bf16(((const uint16_t *)A)[ai]) * bf16(((const uint16_t *)B)[bi]); break;
				case 2: s += (double)half(((const uint16_t *)A)[ai]) * half(((const uint16_t *)B)[bi]); break;
				}
			}
			size_t ci = (size_t)j * ldc + i;
			switch (atype) {
			case 0: ((float *)C)[ci] = (float)s; break;
			case 1: ((double *)C)[ci] = s; break;
			case 14: ((uint16_t *)C)[ci] = tobf16((float)s); break;
			case 2: ((uint16_t *)C)[ci] = tohalf((float)s); break;
			}
		}
	double rate = compute == 70 ? 128 : compute == 77 ? 1024 : atype == 0 ? 256 : 2048; /* FLOP/ns */
	fake_cuda_spend(2.0 * m * n * k / rate);
	long us = fake_cuda_get("gemm_us");
	if (us > 0) usleep(us);
	return SUCCESS;
}
