/*
 * A fake libcublasLt.so.13 for internal/gpu/cuda's tests, loaded after the
 * fake libcuda.so.1 (RTLD_GLOBAL), whose helpers it calls to check pointers,
 * streams and the context, and to spend GPU time. It runs FP8 products the
 * way cuBLASLt's documentation says they run (cublasLtMatmul, "To use FP8
 * kernels, the following set of requirements must be satisfied"), with the
 * values of NVIDIA's headers (cublasLt.h, cublas_api.h, library_types.h of
 * the CUDA 12.6.3 toolkit):
 *
 *   - E4M3 A and B (CUDA_R_8F_E4M3 = 28), compute type CUBLAS_COMPUTE_32F
 *     (68) and scale type CUDA_R_32F (0); C and D of one type, bf16 (14) or
 *     fp32 (0): the outputs the fake computes;
 *   - A transposed and B not ("TN": CUBLASLT_MATMUL_DESC_TRANSA = 3 set to
 *     CUBLAS_OP_T = 1, TRANSB = 4 left CUBLAS_OP_N = 0);
 *   - leading dimensions and pointers 16-byte aligned;
 *   - a GPU of compute capability 8.9 or later (the fake libcuda's "cc").
 * A product that breaks one is refused as the library refuses it:
 * cublasLtMatmulAlgoGetHeuristic and cublasLtMatmul answer
 * CUBLAS_STATUS_NOT_SUPPORTED (15), the heuristic with no algorithm.
 *
 * Stricter than the real library, so that gpuscout's own contract is
 * checked: the A and B scale pointers (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
 * = 17, B = 18) must be set (the library would take 1) to 4 bytes of device
 * memory of the current context; alpha = 1 and beta = 0, read as fp32 from
 * host memory; the stream must be one of the context's own (gpuscout times
 * its stream, never the legacy default one); the algorithm must come from
 * a heuristic query for the same problem, and the workspace must be device
 * memory at least as large as that algorithm wants. Those are answered
 * CUBLAS_STATUS_INVALID_VALUE (7). Every refusal is counted, with the last
 * one's reason (fake_cublaslt_bad), so a test can assert that gpuscout made
 * none.
 *
 * It computes D = scaleD·(alpha·scaleA·scaleB·op(A)·op(B)) for real, with
 * an fp32 accumulator, rounding D to bf16 (to nearest, ties to even), so a
 * test can check D against its own arithmetic. fake_cublaslt_last()
 * describes the last product's arguments. On the fake libcuda's clocks
 * (virtual or "async") a product of 2·m·n·k FLOP takes that many FLOP ÷
 * 4096 FLOP/ns (4.096 TFLOP/s, twice the fake cuBLAS's bf16 rate, as FP8
 * is twice BF16 on the datasheets), then the fake libcuda's "gemm_us".
 *
 * Built with -DCUDA_MAJOR=12 it is a cuBLASLt 12.9.1 (libcublasLt.so.12);
 * otherwise 13.1.0. Like the real one, cublasLtCreate fails with
 * CUBLAS_STATUS_NOT_INITIALIZED on a driver that does not support its CUDA
 * major release. fake_cublaslt_set("create_rc", rc) makes cublasLtCreate
 * answer rc; "reset" undoes it and clears the refusals.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef CUDA_MAJOR
#define CUDA_MAJOR 13
#endif

typedef int cublasStatus_t;
enum { SUCCESS = 0, NOT_INITIALIZED = 1, ALLOC_FAILED = 3, INVALID_VALUE = 7, NOT_SUPPORTED = 15 };
enum { R_32F = 0, R_16BF = 14, R_8F_E4M3 = 28, R_8F_E5M2 = 29 }; /* cudaDataType_t */
enum { COMPUTE_32F = 68 };                                      /* cublasComputeType_t */
enum { OP_N = 0, OP_T = 1 };                                    /* cublasOperation_t */
enum {                                                          /* cublasLtMatmulDescAttributes_t */
	DESC_COMPUTE_TYPE = 0, DESC_SCALE_TYPE = 1, DESC_POINTER_MODE = 2, DESC_TRANSA = 3, DESC_TRANSB = 4,
	DESC_A_SCALE = 17, DESC_B_SCALE = 18, DESC_C_SCALE = 19, DESC_D_SCALE = 20, DESC_AMAX_D = 21, DESC_FAST_ACCUM = 25
};
enum { PREF_SEARCH_MODE = 0, PREF_MAX_WORKSPACE_BYTES = 1 }; /* cublasLtMatmulPreferenceAttributes_t */

/* From the fake libcuda. */
int fake_cuda_range_ok(unsigned long long p, size_t n, int kind);
int fake_cuda_stream_ok(unsigned long long s);
int fake_cuda_ctx_current(void);
long fake_cuda_get(const char *key);
void fake_cuda_spend(double ns);
#define DEVMEM 3

#define MAXOBJ 64
struct lt { int alive; };
struct desc {
	int alive, compute, scale, pointer_mode, transa, transb;
	signed char fast;
	unsigned long long ascale, bscale, cscale, dscale, amax;
};
struct layout { int alive, type; uint64_t rows, cols; int64_t ld; };
struct pref { int alive; uint32_t search; uint64_t maxws; };
typedef struct { uint64_t data[8]; } algo_t; /* cublasLtMatmulAlgo_t */
typedef struct {                              /* cublasLtMatmulHeuristicResult_t */
	algo_t algo;
	size_t workspaceSize;
	cublasStatus_t state;
	float wavesCount;
	int reserved[4];
} heuristic_t;
_Static_assert(sizeof(heuristic_t) == 96, "cublasLtMatmulHeuristicResult_t is 96 bytes");

static struct lt lts[8];
static struct desc descs[MAXOBJ];
static struct layout layouts[MAXOBJ];
static struct pref prefs[MAXOBJ];
static int bad, create_rc;
static char lastbad[256], last[512];
#define MAGIC 0x6770757363ull /* "gpusc": an algorithm this fake chose */
#define ALGO_WS (1u << 20)     /* the workspace the fake's algorithm wants when offered */

static cublasStatus_t fail(const char *fn, const char *why, cublasStatus_t rc) {
	bad++;
	snprintf(lastbad, sizeof lastbad, "%s: %s", fn, why);
	return rc;
}
int fake_cublaslt_bad(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", lastbad); return bad; }
int fake_cublaslt_last(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", last); return 0; }
/* fake_cublaslt_live: live handles (0), descriptors (1), layouts (2), preferences (3). */
int fake_cublaslt_live(int kind) {
	int n = 0;
	for (int i = 0; i < MAXOBJ; i++) {
		if (kind == 0 && i < 8) n += lts[i].alive;
		if (kind == 1) n += descs[i].alive;
		if (kind == 2) n += layouts[i].alive;
		if (kind == 3) n += prefs[i].alive;
	}
	return n;
}
int fake_cublaslt_set(const char *key, int v) {
	if (!strcmp(key, "create_rc")) create_rc = v;
	else if (!strcmp(key, "reset")) create_rc = bad = 0, lastbad[0] = last[0] = 0;
	else return -1;
	return 0;
}

#define LIVE(T, arr, n, p) ((T *)(p) >= (arr) && (T *)(p) < (arr) + (n) && ((T *)(p))->alive)

cublasStatus_t cublasLtCreate(struct lt **h) {
	if (!h) return fail("cublasLtCreate", "NULL handle pointer", INVALID_VALUE);
	if (fake_cuda_get("driver") < CUDA_MAJOR * 1000) return NOT_INITIALIZED; /* cudaErrorInsufficientDriver inside */
	if (create_rc) return create_rc;
	for (int i = 0; i < 8; i++)
		if (!lts[i].alive) {
			lts[i].alive = 1;
			*h = &lts[i];
			return SUCCESS;
		}
	return ALLOC_FAILED;
}
cublasStatus_t cublasLtDestroy(struct lt *h) {
	if (!LIVE(struct lt, lts, 8, h)) return fail("cublasLtDestroy", "not a live handle", NOT_INITIALIZED);
	h->alive = 0;
	return SUCCESS;
}
size_t cublasLtGetVersion(void) { return CUDA_MAJOR == 12 ? 120901 : 130100; } /* major·10000 + minor·100 + patch */

cublasStatus_t cublasLtMatmulDescCreate(struct desc **d, int compute, int scale) {
	if (!d) return fail("cublasLtMatmulDescCreate", "NULL descriptor pointer", INVALID_VALUE);
	for (int i = 0; i < MAXOBJ; i++)
		if (!descs[i].alive) {
			descs[i] = (struct desc){.alive = 1, .compute = compute, .scale = scale, .transa = OP_N, .transb = OP_N};
			*d = &descs[i];
			return SUCCESS;
		}
	return ALLOC_FAILED;
}
cublasStatus_t cublasLtMatmulDescDestroy(struct desc *d) {
	if (!LIVE(struct desc, descs, MAXOBJ, d)) return fail("cublasLtMatmulDescDestroy", "not a live descriptor", INVALID_VALUE);
	d->alive = 0;
	return SUCCESS;
}
/* Each attribute's size is its type's in cublasLt.h; a wrong size is
 * CUBLAS_STATUS_INVALID_VALUE, as the header says. */
cublasStatus_t cublasLtMatmulDescSetAttribute(struct desc *d, int attr, const void *buf, size_t size) {
	const char *fn = "cublasLtMatmulDescSetAttribute";
	if (!LIVE(struct desc, descs, MAXOBJ, d)) return fail(fn, "not a live descriptor", INVALID_VALUE);
	if (!buf) return fail(fn, "NULL buf", INVALID_VALUE);
	size_t want;
	switch (attr) {
	case DESC_COMPUTE_TYPE: case DESC_SCALE_TYPE: case DESC_POINTER_MODE: case DESC_TRANSA: case DESC_TRANSB: want = 4; break;
	case DESC_A_SCALE: case DESC_B_SCALE: case DESC_C_SCALE: case DESC_D_SCALE: case DESC_AMAX_D: want = 8; break;
	case DESC_FAST_ACCUM: want = 1; break;
	default: return fail(fn, "an attribute the fake does not know", INVALID_VALUE);
	}
	if (size != want) return fail(fn, "sizeInBytes is not the attribute's size", INVALID_VALUE);
	int32_t i32 = 0;
	unsigned long long p = 0;
	if (want == 4) memcpy(&i32, buf, 4);
	if (want == 8) memcpy(&p, buf, 8);
	switch (attr) {
	case DESC_COMPUTE_TYPE: d->compute = i32; break;
	case DESC_SCALE_TYPE: d->scale = i32; break;
	case DESC_POINTER_MODE: d->pointer_mode = i32; break;
	case DESC_TRANSA: case DESC_TRANSB:
		if (i32 < 0 || i32 > 2) return fail(fn, "not a cublasOperation_t", INVALID_VALUE);
		if (attr == DESC_TRANSA) d->transa = i32; else d->transb = i32;
		break;
	case DESC_A_SCALE: d->ascale = p; break;
	case DESC_B_SCALE: d->bscale = p; break;
	case DESC_C_SCALE: d->cscale = p; break;
	case DESC_D_SCALE: d->dscale = p; break;
	case DESC_AMAX_D: d->amax = p; break;
	case DESC_FAST_ACCUM: d->fast = *(const signed char *)buf; break;
	}
	return SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutCreate(struct layout **l, int type, uint64_t rows, uint64_t cols, int64_t ld) {
	const char *fn = "cublasLtMatrixLayoutCreate";
	if (!l) return fail(fn, "NULL layout pointer", INVALID_VALUE);
	if (ld < 0 || (uint64_t)ld < rows) return fail(fn, "leading dimension below the rows (column order)", INVALID_VALUE);
	for (int i = 0; i < MAXOBJ; i++)
		if (!layouts[i].alive) {
			layouts[i] = (struct layout){1, type, rows, cols, ld};
			*l = &layouts[i];
			return SUCCESS;
		}
	return ALLOC_FAILED;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(struct layout *l) {
	if (!LIVE(struct layout, layouts, MAXOBJ, l)) return fail("cublasLtMatrixLayoutDestroy", "not a live layout", INVALID_VALUE);
	l->alive = 0;
	return SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceCreate(struct pref **p) {
	if (!p) return fail("cublasLtMatmulPreferenceCreate", "NULL preference pointer", INVALID_VALUE);
	for (int i = 0; i < MAXOBJ; i++)
		if (!prefs[i].alive) {
			prefs[i] = (struct pref){.alive = 1};
			*p = &prefs[i];
			return SUCCESS;
		}
	return ALLOC_FAILED;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(struct pref *p) {
	if (!LIVE(struct pref, prefs, MAXOBJ, p)) return fail("cublasLtMatmulPreferenceDestroy", "not a live preference", INVALID_VALUE);
	p->alive = 0;
	return SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(struct pref *p, int attr, const void *buf, size_t size) {
	const char *fn = "cublasLtMatmulPreferenceSetAttribute";
	if (!LIVE(struct pref, prefs, MAXOBJ, p)) return fail(fn, "not a live preference", INVALID_VALUE);
	if (!buf) return fail(fn, "NULL buf", INVALID_VALUE);
	switch (attr) {
	case PREF_SEARCH_MODE:
		if (size != 4) return fail(fn, "SEARCH_MODE is a uint32_t", INVALID_VALUE);
		memcpy(&p->search, buf, 4);
		return SUCCESS;
	case PREF_MAX_WORKSPACE_BYTES:
		if (size != 8) return fail(fn, "MAX_WORKSPACE_BYTES is a uint64_t", INVALID_VALUE);
		memcpy(&p->maxws, buf, 8);
		return SUCCESS;
	}
	return fail(fn, "an attribute the fake does not know", INVALID_VALUE);
}

static size_t esize(int t) { return t == R_32F ? 4 : t == R_16BF ? 2 : t == R_8F_E4M3 || t == R_8F_E5M2 ? 1 : 0; }

/* problem checks what FP8 kernels need of a descriptor and its layouts and
 * gives m, n, k. */
static cublasStatus_t problem(const char *fn, struct desc *d, struct layout *a, struct layout *b, struct layout *c,
                              struct layout *dd, int *m, int *n, int *k) {
	if (!LIVE(struct desc, descs, MAXOBJ, d)) return fail(fn, "not a live descriptor", INVALID_VALUE);
	if (!LIVE(struct layout, layouts, MAXOBJ, a) || !LIVE(struct layout, layouts, MAXOBJ, b) ||
	    !LIVE(struct layout, layouts, MAXOBJ, c) || !LIVE(struct layout, layouts, MAXOBJ, dd))
		return fail(fn, "a layout is not live", INVALID_VALUE);
	/* op(A) is m×k, op(B) k×n, C and D m×n. */
	uint64_t am = d->transa == OP_N ? a->rows : a->cols, ak = d->transa == OP_N ? a->cols : a->rows;
	uint64_t bk = d->transb == OP_N ? b->rows : b->cols, bn = d->transb == OP_N ? b->cols : b->rows;
	if (ak != bk || c->rows != am || c->cols != bn || dd->rows != c->rows || dd->cols != c->cols)
		return fail(fn, "the layouts' shapes do not make a product", INVALID_VALUE);
	*m = (int)am, *n = (int)bn, *k = (int)ak;
	if (a->type != R_8F_E4M3 || b->type != R_8F_E4M3) return fail(fn, "the fake runs E4M3 × E4M3 products only", NOT_SUPPORTED);
	if (fake_cuda_get("cc") < 89) return fail(fn, "FP8 needs compute capability 8.9 or later", NOT_SUPPORTED);
	if (d->compute != COMPUTE_32F || d->scale != R_32F)
		return fail(fn, "FP8 needs compute type CUBLAS_COMPUTE_32F and scale type CUDA_R_32F", NOT_SUPPORTED);
	if (d->transa != OP_T || d->transb != OP_N) return fail(fn, "FP8 needs the TN layout (A transposed, B not)", NOT_SUPPORTED);
	if (c->type != dd->type || (dd->type != R_16BF && dd->type != R_32F))
		return fail(fn, "the fake writes C = D in bf16 or fp32 only", NOT_SUPPORTED);
	if (d->pointer_mode != 0) return fail(fn, "the fake reads alpha and beta from the host only", NOT_SUPPORTED);
	struct layout *ls[4] = {a, b, c, dd};
	for (int i = 0; i < 4; i++)
		if ((ls[i]->ld * esize(ls[i]->type)) % 16)
			return fail(fn, "a leading dimension is not a multiple of 16 bytes", NOT_SUPPORTED);
	return SUCCESS;
}

static int gpu_ok(void) { return fake_cuda_ctx_current(); }

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(struct lt *h, struct desc *d, struct layout *a, struct layout *b,
                                              struct layout *c, struct layout *dd, struct pref *p, int requested,
                                              heuristic_t *results, int *returned) {
	const char *fn = "cublasLtMatmulAlgoGetHeuristic";
	if (!LIVE(struct lt, lts, 8, h)) return fail(fn, "not a live handle", NOT_INITIALIZED);
	if (!gpu_ok()) return fail(fn, "no context current", NOT_INITIALIZED);
	if (!LIVE(struct pref, prefs, MAXOBJ, p)) return fail(fn, "not a live preference", INVALID_VALUE);
	if (requested <= 0 || !results || !returned) return fail(fn, "requestedAlgoCount <= 0 or NULL results", INVALID_VALUE);
	*returned = 0;
	int m, n, k;
	cublasStatus_t rc = problem(fn, d, a, b, c, dd, &m, &n, &k);
	if (rc) return rc;
	uint64_t ws = p->maxws >= ALGO_WS ? ALGO_WS : 0;
	memset(&results[0], 0, sizeof results[0]);
	results[0].algo.data[0] = MAGIC;
	results[0].algo.data[1] = (uint64_t)m, results[0].algo.data[2] = (uint64_t)n, results[0].algo.data[3] = (uint64_t)k;
	results[0].algo.data[4] = ws;
	results[0].algo.data[5] = (uint64_t)dd->type;
	results[0].workspaceSize = ws;
	results[0].state = SUCCESS;
	results[0].wavesCount = 1;
	*returned = 1;
	return SUCCESS;
}

/* E4M3 (bias 7, no infinities, S.1111.111 NaN) widened exactly. */
static float pow2(int e) { uint32_t u = (uint32_t)(e + 127) << 23; float f; memcpy(&f, &u, 4); return f; }
static float e4m3(uint8_t v) {
	int e = (v >> 3) & 0xf, m = v & 7;
	float f;
	if (e == 0xf && m == 7) { uint32_t u = 0x7fc00000; memcpy(&f, &u, 4); return f; }
	f = e == 0 ? (float)m * pow2(-9) : (float)(8 + m) * pow2(e - 10);
	return v & 0x80 ? -f : f;
}
static uint16_t tobf16(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16); }

/* scale reads a scale pointer: 1 when unset, else 4 bytes of device memory. */
static int scale(unsigned long long p, float *v) {
	*v = 1;
	if (!p) return 1;
	if (!fake_cuda_range_ok(p, 4, DEVMEM)) return 0;
	memcpy(v, (const void *)(uintptr_t)p, 4);
	return 1;
}

cublasStatus_t cublasLtMatmul(struct lt *h, struct desc *d, const void *alpha, const void *A, struct layout *la,
                              const void *B, struct layout *lb, const void *beta, const void *C, struct layout *lc,
                              void *D, struct layout *ld, const algo_t *algo, void *ws, size_t wsSize,
                              unsigned long long stream) {
	const char *fn = "cublasLtMatmul";
	if (!LIVE(struct lt, lts, 8, h)) return fail(fn, "not a live handle", NOT_INITIALIZED);
	if (!gpu_ok()) return fail(fn, "no context current", NOT_INITIALIZED);
	if (!stream || !fake_cuda_stream_ok(stream)) return fail(fn, "not a stream of this context (gpuscout times its own stream)", INVALID_VALUE);
	int m, n, k;
	cublasStatus_t rc = problem(fn, d, la, lb, lc, ld, &m, &n, &k);
	if (rc) return rc;
	if (!alpha || !beta) return fail(fn, "NULL alpha or beta", INVALID_VALUE);
	float al, be;
	memcpy(&al, alpha, 4);
	memcpy(&be, beta, 4);
	if (al != 1 || be != 0) return fail(fn, "alpha != 1 or beta != 0 (read as fp32, the scale type)", INVALID_VALUE);
	if (!d->ascale || !d->bscale) return fail(fn, "no A or B scale pointer (gpuscout always sets both)", INVALID_VALUE);
	float as, bs, ds;
	if (!scale(d->ascale, &as) || !scale(d->bscale, &bs) || !scale(d->dscale, &ds))
		return fail(fn, "a scale pointer is not 4 bytes of device memory of this context", INVALID_VALUE);
	if (algo && (algo->data[0] != MAGIC || algo->data[1] != (uint64_t)m || algo->data[2] != (uint64_t)n ||
	             algo->data[3] != (uint64_t)k || algo->data[5] != (uint64_t)ld->type))
		return fail(fn, "the algorithm was not chosen for this problem", INVALID_VALUE);
	size_t need = algo ? (size_t)algo->data[4] : 0;
	if (wsSize < need) return fail(fn, "workspaceSizeInBytes below the algorithm's workspace", INVALID_VALUE);
	if (wsSize && !fake_cuda_range_ok((uintptr_t)ws, wsSize, DEVMEM)) return fail(fn, "the workspace is not device memory of this context", INVALID_VALUE);
	const void *ps[4] = {A, B, C, D};
	for (int i = 0; i < 4; i++)
		if ((uintptr_t)ps[i] % 16) return fail(fn, "a matrix pointer is not 16-byte aligned", INVALID_VALUE);
	size_t oe = esize(ld->type);
	if (!fake_cuda_range_ok((uintptr_t)A, (size_t)la->ld * la->cols, DEVMEM) ||
	    !fake_cuda_range_ok((uintptr_t)B, (size_t)lb->ld * lb->cols, DEVMEM) ||
	    !fake_cuda_range_ok((uintptr_t)C, (size_t)lc->ld * lc->cols * oe, DEVMEM) ||
	    !fake_cuda_range_ok((uintptr_t)D, (size_t)ld->ld * ld->cols * oe, DEVMEM))
		return fail(fn, "A, B, C or D outside device allocations of this context", INVALID_VALUE);
	snprintf(last, sizeof last, "transa=%d transb=%d m=%d n=%d k=%d atype=%d btype=%d ctype=%d dtype=%d lda=%lld ldb=%lld ldc=%lld ldd=%lld "
	         "compute=%d scale=%d ascale=%g bscale=%g dscale=%s fast_accum=%d workspace=%zu",
	         d->transa, d->transb, m, n, k, la->type, lb->type, lc->type, ld->type, (long long)la->ld, (long long)lb->ld,
	         (long long)lc->ld, (long long)ld->ld, d->compute, d->scale, as, bs, d->dscale ? "set" : "unset", d->fast, wsSize);
	const uint8_t *a8 = A, *b8 = B;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < m; i++) {
			float s = 0; /* the fp32 accumulator */
			for (int l = 0; l < k; l++)
				s += e4m3(a8[(size_t)i * la->ld + l]) * e4m3(b8[(size_t)j * lb->ld + l]);
			s = ds * (al * as * bs * s);
			size_t di = (size_t)j * ld->ld + i;
			if (ld->type == R_16BF) ((uint16_t *)D)[di] = tobf16(s);
			else ((float *)D)[di] = s;
		}
	fake_cuda_spend(2.0 * m * n * k / 4096); /* 4.096 TFLOP/s */
	long us = fake_cuda_get("gemm_us");
	if (us > 0) usleep(us);
	return SUCCESS;
}
