/*
 * A fake libcuda.so.1 for internal/gpu/cuda's tests. It exports the driver
 * API symbols gpuscout binds with cuda.h's signatures, answers with the
 * recorded H200's values (../../../../shared/data/gpu/h200-2026-11-30:
 * "NVIDIA H200", 132 SMs, 1980 MHz, 3201 MHz memory, 6016-bit bus, compute
 * capability 9.0, CUDA 13.0) and checks every argument the way the driver
 * would: a context must be current on the calling thread, streams, events
 * and device pointers must belong to it, ranges must lie inside an
 * allocation, and a CUdevice must be a handle cuDeviceGet gave (the fake's
 * handles are not the ordinals, so passing an ordinal is caught). A bad call
 * is answered with the driver's error and counted.
 * "Device memory" is host memory, so copies, fills and (in fakecublas.c)
 * products really happen. Every call for a device records the calling
 * thread (gettid), so the tests can check that one thread did all of it.
 *
 * Like the real driver it behaves differently where a real node does:
 *   - CUDA_VISIBLE_DEVICES: fake_cuda_visible("1,0") makes ordinal 0 the
 *     physical GPU 1 (its UUID and bus id), as the driver does at cuInit;
 *   - "driver": the CUDA version cuDriverGetVersion reports (13000; 12040 is
 *     a 550-branch driver), which fakecublas.c and fakenccl.c check;
 *   - "init_rc": cuInit's answer, e.g. 802 CUDA_ERROR_SYSTEM_NOT_READY on an
 *     HGX node whose nvidia-fabricmanager is not running;
 *   - fake_cuda_ctx_rc(gpu, rc): creating physical GPU gpu's context fails
 *     with rc: 46 CUDA_ERROR_DEVICE_UNAVAILABLE (another process holds it in
 *     EXCLUSIVE_PROCESS mode), 999 CUDA_ERROR_UNKNOWN (a GPU an Xid broke);
 *   - "mig" (a mask of physical GPUs): the visible device is one MIG
 *     instance: its UUID is the instance's, memory and SMs its share;
 *   - "cc": the compute capability of every GPU, 10·major + minor (90, the
 *     H200's; 89 an L4 or L40S; 80 an A100, which has no FP8 tensor
 *     cores), which fakecublaslt.c and fakenvml.c read too;
 *   - cuGetErrorName/cuGetErrorString name every code the driver names.
 *
 * Builds: -DDEVBASE=0     CUdevice handles equal to the ordinals
 *         -DNO_ELAPSED_V2  only cuEventElapsedTime (older drivers)
 *         -DNO_MEMSET      without cuMemsetD32Async (a required symbol)
 *         -DNO_ERROR_NAMES without cuGetErrorName/cuGetErrorString
 * fake_cuda_set(key, v): "gpus" (1..4; GPU 1.. are synthetic), "nogpu"
 * (cuInit answers CUDA_ERROR_NO_DEVICE), "init_ms" (cuInit sleeps), "hang_ms"
 * (cuEventSynchronize sleeps that long), "gemm_us" (fakecublas's product
 * takes that long), "vclock" (1: events read a virtual clock per GPU, below),
 * "driver", "init_rc", "mig", "cc", "free" (cuMemGetInfo's free bytes), "reset".
 *
 * The virtual clock makes device times deterministic, so that a test can
 * work a measurement out by hand. Events record the clock of their GPU, and
 * each operation advances its GPU's clock by (ns; n bytes):
 *   host <-> device copy        n / 64          (64 GB/s)
 *   device copy                 n / 2048        (4096 GB/s read + written)
 *   cuMemsetD32Async            1000 + 4·count / 4096
 *   peer copy, access enabled   2000 + n / 256  (256 GB/s after 2 µs)
 *   peer copy, staged via host  10000 + n / 32
 *   fakecublas's products and fakenccl's all-reduces: see those files.
 *
 * "async" (1) makes the fake behave in time as a real driver does, on the
 * monotonic clock: a call that queues work (a copy, a fill, a product, an
 * all-reduce, an event) costs the host "call_ns" of busy time before it
 * returns; the work runs on its GPU after what is queued before it, taking
 * the table's time × "scale"; an event's time is when its stream reaches
 * it (at once on an idle stream: the host's time of the call); synchronising
 * waits until then, and cuEventElapsedTime of an event not yet reached
 * answers CUDA_ERROR_NOT_READY. So a gap the host leaves between two pieces
 * of work is idle GPU time, and a timing that records its start on an idle
 * stream counts the host's time until the work is queued. With
 * "throttle_pct" the GPU also heats: an operation that starts when the GPU
 * has been busy at least 90% of the last "heat_ms" (50) runs that much
 * slower (clocks capped by power), as a real GPU under sustained load does,
 * and one with time to cool between operations never does.
 * "stall_every" n and "stall_us": every nth cuStreamSynchronize returns
 * that much late, as a waiting thread that a hypervisor or a noisy
 * neighbour kept off its CPU: a delay only the host's clock sees.
 * fake_cuda_telemetry gives the fake NVML the utilisation and throttling
 * of the last 100 ms, and fake_cuda_busy the busy time of a GPU up to now.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/syscall.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NOT_INITIALIZED = 3, NO_DEVICE = 100,
       INVALID_DEVICE = 101, INVALID_CONTEXT = 201, INVALID_HANDLE = 400 };
/* CUdevice handles are DEVBASE + ordinal: an int, as in cuda.h, but never
 * the ordinal (-DDEVBASE=0 gives the ordinals, as drivers happen to). */
#ifndef DEVBASE
#define DEVBASE 0x100
#endif

#define MAXDEV 4
#define MAXTID 16
struct ctx { int dev, refs; };
static struct ctx ctxs[MAXDEV];
static __thread struct ctx *cur;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int inited, ngpus = 1, bad;
static long hang_ms, gemm_us, nogpu, init_ms;
static char lastbad[256];
static pid_t tids[MAXDEV][MAXTID];
static int ntids[MAXDEV];

struct obj { int kind, alive; struct ctx *ctx; char *p; size_t n; }; /* streams, events, allocations */
enum { STREAM = 1, EVENT, DEVMEM, HOSTMEM };
#define MAXOBJ 512
static struct obj objs[MAXOBJ];
static struct timespec evtime[MAXOBJ];
static int vclock;
static int vis[MAXDEV] = {0, 1, 2, 3}; /* ordinal → physical GPU */
static int driver_version = 13000, init_rc, mig_mask, ctx_rc[MAXDEV], cc = 90;
static unsigned long long free_bytes = 149560000000ULL;
static int peer_on[MAXDEV][MAXDEV]; /* cuCtxEnablePeerAccess(peer) from dev's context */
static double vt[MAXDEV], evv[MAXOBJ]; /* virtual clock per GPU, and at each event (ns) */

/* The real-time ("async") model: when each GPU's queued work ends, and the
 * intervals it was busy (merged when back to back), on CLOCK_MONOTONIC ns. */
static int async_mode, throttle_pct, stall_every, nsyncs;
static long stall_us;
static long call_ns, heat_ms = 50, scale = 1;
static double busy_until[MAXDEV], eva[MAXOBJ];
#define MAXIV 16384
struct iv { double a, b; int hot; };
static struct iv ivs[MAXDEV][MAXIV];
static int niv[MAXDEV];

static double now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}
/* The host's cost of a call: busy, as a driver spends it. */
void fake_cuda_host_cost(void) {
	if (!async_mode || call_ns <= 0) return;
	double end = now_ns() + call_ns;
	while (now_ns() < end)
		;
}
static void wait_until(double t) {
	for (double n = now_ns(); n < t; n = now_ns()) {
		double d = t - n;
		struct timespec ts = {(time_t)(d / 1e9), (long)((long long)d % 1000000000LL)};
		nanosleep(&ts, NULL);
	}
}
/* busy_in: how long dev was (or will have been) busy in [a, b]; mu held. */
static double busy_in(int dev, double a, double b) {
	double s = 0;
	for (int i = niv[dev] - 1; i >= 0 && i >= niv[dev] - MAXIV; i--) {
		struct iv *v = &ivs[dev][i % MAXIV];
		if (v->b <= a) break;
		double lo = v->a > a ? v->a : a, hi = v->b < b ? v->b : b;
		if (hi > lo) s += hi - lo;
	}
	return s;
}
/* occupy queues ns of work on dev that cannot start before ready; mu held.
 * It returns when the work ends. */
static double occupy(int dev, double ready, double ns) {
	double start = ready > busy_until[dev] ? ready : busy_until[dev];
	double w = heat_ms * 1e6;
	int hot = throttle_pct > 0 && busy_in(dev, start - w, start) >= 0.9 * w;
	if (hot) ns *= 1 + throttle_pct / 100.0;
	struct iv *last = niv[dev] ? &ivs[dev][(niv[dev] - 1) % MAXIV] : NULL;
	if (last && last->b >= start && last->hot == hot) last->b = start + ns;
	else ivs[dev][niv[dev]++ % MAXIV] = (struct iv){start, start + ns, hot};
	busy_until[dev] = start + ns;
	return start + ns;
}
/* fake_cuda_collective queues an operation of ns on each of n GPUs that
 * starts on all of them together, once the last was launched (launch[i],
 * monotonic ns) and each was free: an all-reduce's kernels wait for their
 * peers. Each GPU counts as busy from its own start. */
void fake_cuda_collective(const int *devs, const double *launch, int n, double ns) {
	pthread_mutex_lock(&mu);
	double t0 = 0;
	for (int i = 0; i < n; i++) {
		double r = launch[i] > busy_until[devs[i]] ? launch[i] : busy_until[devs[i]];
		if (r > t0) t0 = r;
	}
	for (int i = 0; i < n; i++) {
		int d = devs[i];
		double own = launch[i] > busy_until[d] ? launch[i] : busy_until[d];
		occupy(d, own, t0 - own + ns * scale);
	}
	pthread_mutex_unlock(&mu);
}
int fake_cuda_async(void) { return async_mode; }
double fake_cuda_now(void) { return now_ns(); }
/* fake_cuda_telemetry: physical GPU gpu's busy fraction over the last
 * window_ns and how much slower its latest work ran (1 + throttle_pct/100
 * when hot, else 1); 0 when the fake is not in async mode (NVML then
 * answers its recorded values). */
int fake_cuda_telemetry(int gpu, double window_ns, double *util, double *slow) {
	if (!async_mode) return 0;
	int dev = -1;
	for (int d = 0; d < ngpus; d++)
		if (vis[d] == gpu) dev = d;
	if (dev < 0) return 0;
	pthread_mutex_lock(&mu);
	double t = now_ns();
	*util = busy_in(dev, t - window_ns, t) / window_ns;
	*slow = 1;
	for (int i = niv[dev] - 1; i >= 0 && i >= niv[dev] - MAXIV; i--) {
		struct iv *v = &ivs[dev][i % MAXIV];
		if (v->a <= t && v->b >= t - window_ns) {
			if (v->hot) *slow = 1 + throttle_pct / 100.0;
			break;
		}
	}
	pthread_mutex_unlock(&mu);
	return 1;
}
/* fake_cuda_busy: ordinal dev's busy ns from a to b (monotonic ns). */
double fake_cuda_busy(int dev, double a, double b) {
	pthread_mutex_lock(&mu);
	double s = busy_in(dev, a, b);
	pthread_mutex_unlock(&mu);
	return s;
}

/* fake_cuda_advance moves dev's virtual clock on by ns (when it runs), or
 * in async mode queues ns × scale of work on it, after the host's cost. */
void fake_cuda_advance(int dev, double ns) {
	if (dev < 0 || dev >= MAXDEV) return;
	if (async_mode) {
		double t = now_ns();
		pthread_mutex_lock(&mu);
		occupy(dev, t, ns * scale);
		pthread_mutex_unlock(&mu);
		fake_cuda_host_cost();
		return;
	}
	pthread_mutex_lock(&mu);
	if (vclock) vt[dev] += ns;
	pthread_mutex_unlock(&mu);
}

static CUresult fail(const char *fn, const char *why, CUresult rc) {
	pthread_mutex_lock(&mu);
	bad++;
	snprintf(lastbad, sizeof lastbad, "%s: %s", fn, why);
	pthread_mutex_unlock(&mu);
	return rc;
}

static void record(int dev) {
	pid_t t = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&mu);
	int i;
	for (i = 0; i < ntids[dev] && tids[dev][i] != t; i++)
		;
	if (i == ntids[dev] && i < MAXTID) tids[dev][ntids[dev]++] = t;
	pthread_mutex_unlock(&mu);
}

int fake_cuda_set(const char *key, long v) {
	if (!strcmp(key, "gpus")) ngpus = (int)v;
	else if (!strcmp(key, "hang_ms")) hang_ms = v;
	else if (!strcmp(key, "gemm_us")) gemm_us = v;
	else if (!strcmp(key, "nogpu")) nogpu = v;
	else if (!strcmp(key, "init_ms")) init_ms = v;
	else if (!strcmp(key, "vclock")) vclock = (int)v;
	else if (!strcmp(key, "driver")) driver_version = (int)v;
	else if (!strcmp(key, "init_rc")) init_rc = (int)v;
	else if (!strcmp(key, "mig")) mig_mask = (int)v;
	else if (!strcmp(key, "cc")) cc = (int)v;
	else if (!strcmp(key, "free")) free_bytes = (unsigned long long)v;
	else if (!strcmp(key, "async")) async_mode = (int)v;
	else if (!strcmp(key, "call_ns")) call_ns = v;
	else if (!strcmp(key, "scale")) scale = v > 0 ? v : 1;
	else if (!strcmp(key, "throttle_pct")) throttle_pct = (int)v;
	else if (!strcmp(key, "heat_ms")) heat_ms = v;
	else if (!strcmp(key, "stall_every")) stall_every = (int)v;
	else if (!strcmp(key, "stall_us")) stall_us = v;
	else if (!strcmp(key, "reset")) {
		async_mode = throttle_pct = stall_every = nsyncs = 0; call_ns = stall_us = 0; heat_ms = 50; scale = 1;
		memset(busy_until, 0, sizeof busy_until);
		memset(niv, 0, sizeof niv);
		ngpus = 1; hang_ms = gemm_us = nogpu = init_ms = 0; bad = 0; lastbad[0] = 0;
		vclock = 0;
		driver_version = 13000; init_rc = mig_mask = 0; free_bytes = 149560000000ULL; cc = 90;
		for (int i = 0; i < MAXDEV; i++) vis[i] = i, ctx_rc[i] = 0;
		memset(vt, 0, sizeof vt);
		memset(peer_on, 0, sizeof peer_on);
		memset(ntids, 0, sizeof ntids);
	} else return -1;
	return 0;
}
long fake_cuda_get(const char *key) {
	if (!strcmp(key, "gemm_us")) return gemm_us;
	if (!strcmp(key, "driver")) return driver_version;
	if (!strcmp(key, "cc")) return cc;
	return -1;
}
/* fake_cuda_visible emulates CUDA_VISIBLE_DEVICES ("1,0"): the ordinals are
 * the listed physical GPUs, in that order. */
int fake_cuda_visible(const char *list) {
	int n = 0;
	for (const char *p = list; *p && n < MAXDEV;) {
		char *end;
		long g = strtol(p, &end, 10);
		if (end == p || g < 0 || g >= MAXDEV) return -1;
		vis[n++] = (int)g;
		p = *end == ',' ? end + 1 : end;
	}
	ngpus = n;
	return n;
}
/* fake_cuda_ctx_rc makes creating physical GPU gpu's context fail with rc. */
int fake_cuda_ctx_rc(int gpu, int rc) { if (gpu < 0 || gpu >= MAXDEV) return -1; ctx_rc[gpu] = rc; return 0; }
int fake_cuda_bad(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", lastbad); return bad; }
/* fake_cuda_tids: how many threads made calls for dev; the first in *first. */
int fake_cuda_tids(int dev, int *first) { if (first) *first = ntids[dev] ? tids[dev][0] : 0; return ntids[dev]; }
/* Live objects of a kind (leak checks after Close). */
int fake_cuda_live(int kind) { int n = 0; for (int i = 0; i < MAXOBJ; i++) n += objs[i].alive && objs[i].kind == kind; return n; }

#define NEED_INIT(fn) do { if (!inited) return fail(fn, "cuInit not called", NOT_INITIALIZED); } while (0)
/* NEED_DEV checks a CUdevice handle and turns it into the ordinal d. */
#define NEED_DEV(fn, h, d) int d = (h) - DEVBASE; do { NEED_INIT(fn); \
	if (d < 0 || d >= ngpus) return fail(fn, DEVBASE && (h) >= 0 && (h) < ngpus ? "an ordinal where a CUdevice from cuDeviceGet is wanted" : "bad CUdevice", INVALID_DEVICE); \
	record(d); } while (0)
#define MIG(d) (mig_mask >> vis[d] & 1)
#define NEED_CTX(fn) do { NEED_INIT(fn); if (!cur || cur->refs <= 0) return fail(fn, "no context current on this thread", INVALID_CONTEXT); record(cur->dev); } while (0)
#define NEED_PTR(fn, p) do { if (!(p)) return fail(fn, "NULL pointer: " #p, INVALID_VALUE); } while (0)

static struct obj *newobj(int kind, size_t n) {
	pthread_mutex_lock(&mu);
	for (int i = 0; i < MAXOBJ; i++)
		if (!objs[i].alive && !objs[i].p) {
			objs[i] = (struct obj){kind, 1, cur, NULL, n};
			pthread_mutex_unlock(&mu);
			return &objs[i];
		}
	pthread_mutex_unlock(&mu);
	return NULL;
}
/* handle → object of kind in the current context (0 stream = legacy default). */
static struct obj *getobj(unsigned long long h, int kind) {
	struct obj *o = (struct obj *)(uintptr_t)h;
	if (o < objs || o >= objs + MAXOBJ || !o->alive || o->kind != kind || o->ctx != cur) return NULL;
	return o;
}
/* range_in: [p, p+n) inside one allocation of context c. */
static int range_in(unsigned long long p, size_t n, int kind, struct ctx *c) {
	for (int i = 0; i < MAXOBJ; i++) {
		struct obj *o = &objs[i];
		if (o->alive && o->kind == kind && (kind == HOSTMEM || o->ctx == c) &&
		    p >= (uintptr_t)o->p && p + n <= (uintptr_t)o->p + o->n)
			return 1;
	}
	return 0;
}
/* fake_cuda_range_ok: [p, p+n) inside one allocation of the current context. */
int fake_cuda_range_ok(unsigned long long p, size_t n, int kind) { return range_in(p, n, kind, cur); }
int fake_cuda_stream_ok(unsigned long long s) { return s == 0 || getobj(s, STREAM) != NULL; }
/* fake_cuda_spend advances the current context's GPU (fakecublas). */
void fake_cuda_spend(double ns) { if (cur) fake_cuda_advance(cur->dev, ns); }
int fake_cuda_ctx_current(void) { if (cur) record(cur->dev); return cur != NULL && cur->refs > 0; }
#define NEED_STREAM(fn, s) do { if (!fake_cuda_stream_ok(s)) return fail(fn, "stream not of this context", INVALID_HANDLE); } while (0)
#define NEED_DEVRANGE(fn, p, n) do { if (!fake_cuda_range_ok(p, n, DEVMEM)) return fail(fn, "device range outside an allocation of this context", INVALID_VALUE); } while (0)

CUresult cuInit(unsigned int flags) {
	if (flags != 0) return fail("cuInit", "flags must be 0", INVALID_VALUE);
	if (init_ms > 0) usleep(init_ms * 1000);
	if (nogpu) return NO_DEVICE;
	if (init_rc) return init_rc;
	inited = 1;
	return OK;
}
CUresult cuDriverGetVersion(int *v) { NEED_PTR("cuDriverGetVersion", v); *v = driver_version; return OK; }
CUresult cuDeviceGetCount(int *n) { NEED_INIT("cuDeviceGetCount"); NEED_PTR("cuDeviceGetCount", n); *n = ngpus; return OK; }
CUresult cuDeviceGet(int *d, int ord) {
	NEED_INIT("cuDeviceGet");
	if (ord < 0 || ord >= ngpus) return fail("cuDeviceGet", "bad device ordinal", INVALID_DEVICE);
	NEED_PTR("cuDeviceGet", d);
	record(ord);
	*d = DEVBASE + ord;
	return OK;
}
CUresult cuDeviceGetName(char *buf, int len, int h) {
	NEED_DEV("cuDeviceGetName", h, d);
	NEED_PTR("cuDeviceGetName", buf);
	if (len < 1) return fail("cuDeviceGetName", "length < 1", INVALID_VALUE);
	snprintf(buf, len, MIG(d) ? "NVIDIA H200 MIG 1g.18gb" : "NVIDIA H200");
	return OK;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int h) {
	NEED_DEV("cuDeviceTotalMem_v2", h, d);
	NEED_PTR("cuDeviceTotalMem_v2", b);
	*b = MIG(d) ? 17716740096ULL : 150109880320ULL;
	return OK;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int h) {
	NEED_DEV("cuDeviceGetAttribute", h, d);
	NEED_PTR("cuDeviceGetAttribute", v);
	switch (attr) {
	case 13: *v = 1980000; break;  /* CLOCK_RATE, kHz */
	case 16: *v = MIG(d) ? 16 : 132; break; /* MULTIPROCESSOR_COUNT */
	case 32: *v = 1; break;        /* ECC_ENABLED */
	case 36: *v = 3201000; break;  /* MEMORY_CLOCK_RATE, kHz */
	case 37: *v = 6016; break;     /* GLOBAL_MEMORY_BUS_WIDTH */
	case 38: *v = 62914560; break; /* L2_CACHE_SIZE */
	case 75: *v = cc / 10; break;  /* COMPUTE_CAPABILITY_MAJOR */
	case 76: *v = cc % 10; break;  /* COMPUTE_CAPABILITY_MINOR */
	default: return fail("cuDeviceGetAttribute", "attribute the fake does not know", INVALID_VALUE);
	}
	return OK;
}
CUresult cuDeviceGetPCIBusId(char *buf, int len, int h) {
	NEED_DEV("cuDeviceGetPCIBusId", h, d);
	NEED_PTR("cuDeviceGetPCIBusId", buf);
	if (len < 13) return fail("cuDeviceGetPCIBusId", "buffer shorter than 13", INVALID_VALUE);
	snprintf(buf, len, "0000:00:%02x.0", 6 + vis[d]);
	return OK;
}
/* The physical GPU's UUID (GPU 0 the recorded H200's, GPU n ...0n), or
 * under MIG the instance's (b3a15e0d-9c4f-5e1a-8f2c-00000000000n), which
 * fakenvml.c names MIG-<uuid>. */
static CUresult uuid(const char *fn, unsigned char *u, int h) {
	static const unsigned char h200[16] = {0x8a, 0x89, 0xbb, 0x26, 0x42, 0x3b, 0x72, 0x17,
	                                       0xaa, 0x80, 0x46, 0x9f, 0x70, 0xfa, 0x01, 0x96};
	static const unsigned char mig[10] = {0xb3, 0xa1, 0x5e, 0x0d, 0x9c, 0x4f, 0x5e, 0x1a, 0x8f, 0x2c};
	NEED_DEV(fn, h, d);
	NEED_PTR(fn, u);
	int p = vis[d];
	memset(u, 0, 16);
	if (MIG(d)) memcpy(u, mig, sizeof mig), u[15] = (unsigned char)p;
	else if (p == 0) memcpy(u, h200, 16);
	else u[15] = (unsigned char)p;
	return OK;
}
CUresult cuDeviceGetUuid_v2(unsigned char *u, int h) { return uuid("cuDeviceGetUuid_v2", u, h); }
CUresult cuDeviceGetUuid(unsigned char *u, int h) { return uuid("cuDeviceGetUuid", u, h); }

CUresult cuDevicePrimaryCtxRetain(struct ctx **c, int h) {
	NEED_DEV("cuDevicePrimaryCtxRetain", h, d);
	NEED_PTR("cuDevicePrimaryCtxRetain", c);
	if (ctx_rc[vis[d]]) return ctx_rc[vis[d]];
	ctxs[d].dev = d;
	ctxs[d].refs++;
	*c = &ctxs[d];
	return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int h) {
	NEED_DEV("cuDevicePrimaryCtxRelease_v2", h, d);
	if (ctxs[d].refs <= 0) return fail("cuDevicePrimaryCtxRelease_v2", "not retained", INVALID_CONTEXT);
	ctxs[d].refs--;
	return OK;
}
CUresult cuCtxSetCurrent(struct ctx *c) {
	NEED_INIT("cuCtxSetCurrent");
	if (c && (c < ctxs || c >= ctxs + MAXDEV || c->refs <= 0)) return fail("cuCtxSetCurrent", "not a retained context", INVALID_CONTEXT);
	cur = c;
	if (c) record(c->dev);
	return OK;
}
CUresult cuCtxGetCurrent(struct ctx **c) { NEED_PTR("cuCtxGetCurrent", c); *c = cur; return OK; }

CUresult cuStreamCreate(unsigned long long *s, unsigned int flags) {
	NEED_CTX("cuStreamCreate");
	NEED_PTR("cuStreamCreate", s);
	if (flags > 1) return fail("cuStreamCreate", "flags not DEFAULT or NON_BLOCKING", INVALID_VALUE);
	struct obj *o = newobj(STREAM, 0);
	if (!o) return OUT_OF_MEMORY;
	*s = (uintptr_t)o;
	return OK;
}
static CUresult destroy(const char *fn, unsigned long long h, int kind) {
	NEED_CTX(fn);
	struct obj *o = getobj(h, kind);
	if (!o) return fail(fn, "not a live handle of this context", INVALID_HANDLE);
	o->alive = 0;
	return OK;
}
CUresult cuStreamDestroy_v2(unsigned long long s) { return destroy("cuStreamDestroy_v2", s, STREAM); }
CUresult cuStreamSynchronize(unsigned long long s) {
	NEED_CTX("cuStreamSynchronize");
	NEED_STREAM("cuStreamSynchronize", s);
	if (async_mode) {
		pthread_mutex_lock(&mu);
		double t = busy_until[cur->dev];
		int stall = stall_every > 0 && ++nsyncs % stall_every == 0;
		pthread_mutex_unlock(&mu);
		wait_until(t);
		if (stall) wait_until(now_ns() + stall_us * 1e3); /* the host, not the GPU, is late */
	}
	return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	NEED_CTX("cuMemAlloc_v2");
	NEED_PTR("cuMemAlloc_v2", p);
	if (n == 0) return fail("cuMemAlloc_v2", "size 0", INVALID_VALUE);
	if (n > 150109880320ULL) return OUT_OF_MEMORY;
	if (n > (256u << 20)) return fail("cuMemAlloc_v2", "the fake keeps allocations under 256 MiB", OUT_OF_MEMORY);
	struct obj *o = newobj(DEVMEM, n);
	if (!o || !(o->p = malloc(n))) return OUT_OF_MEMORY;
	memset(o->p, 0xa5, n); /* undefined contents */
	*p = (uintptr_t)o->p;
	return OK;
}
static CUresult freemem(const char *fn, void *p, int kind) {
	NEED_CTX(fn);
	for (int i = 0; i < MAXOBJ; i++)
		if (objs[i].alive && objs[i].kind == kind && objs[i].p == p && (kind == HOSTMEM || objs[i].ctx == cur)) {
			objs[i].alive = 0;
			free(objs[i].p);
			objs[i].p = NULL;
			return OK;
		}
	return fail(fn, "not a live allocation", INVALID_VALUE);
}
CUresult cuMemFree_v2(CUdeviceptr p) { return freemem("cuMemFree_v2", (void *)(uintptr_t)p, DEVMEM); }
CUresult cuMemAllocHost_v2(void **pp, size_t n) {
	NEED_CTX("cuMemAllocHost_v2");
	NEED_PTR("cuMemAllocHost_v2", pp);
	if (n == 0) return fail("cuMemAllocHost_v2", "size 0", INVALID_VALUE);
	struct obj *o = newobj(HOSTMEM, n);
	if (!o || !(o->p = malloc(n))) return OUT_OF_MEMORY;
	*pp = o->p;
	return OK;
}
CUresult cuMemFreeHost(void *p) { return freemem("cuMemFreeHost", p, HOSTMEM); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, unsigned long long s) {
	NEED_CTX("cuMemcpyHtoDAsync_v2");
	NEED_PTR("cuMemcpyHtoDAsync_v2", src);
	NEED_STREAM("cuMemcpyHtoDAsync_v2", s);
	NEED_DEVRANGE("cuMemcpyHtoDAsync_v2", dst, n);
	memcpy((void *)(uintptr_t)dst, src, n);
	fake_cuda_spend(n / 64.0);
	return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, unsigned long long s) {
	NEED_CTX("cuMemcpyDtoHAsync_v2");
	NEED_PTR("cuMemcpyDtoHAsync_v2", dst);
	NEED_STREAM("cuMemcpyDtoHAsync_v2", s);
	NEED_DEVRANGE("cuMemcpyDtoHAsync_v2", src, n);
	memcpy(dst, (void *)(uintptr_t)src, n);
	fake_cuda_spend(n / 64.0);
	return OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, unsigned long long s) {
	NEED_CTX("cuMemcpyDtoDAsync_v2");
	NEED_STREAM("cuMemcpyDtoDAsync_v2", s);
	NEED_DEVRANGE("cuMemcpyDtoDAsync_v2", dst, n);
	NEED_DEVRANGE("cuMemcpyDtoDAsync_v2", src, n);
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	fake_cuda_spend(n / 2048.0);
	return OK;
}
#ifndef NO_MEMSET
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, unsigned long long s) {
	NEED_CTX("cuMemsetD32Async");
	NEED_STREAM("cuMemsetD32Async", s);
	if (dst % 4) return fail("cuMemsetD32Async", "destination not 4-byte aligned", INVALID_VALUE);
	NEED_DEVRANGE("cuMemsetD32Async", dst, n * 4);
	unsigned int *p = (unsigned int *)(uintptr_t)dst;
	for (size_t i = 0; i < n; i++) p[i] = v;
	fake_cuda_spend(1000 + 4.0 * n / 4096);
	return OK;
}
#endif
CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
	NEED_CTX("cuMemGetInfo_v2");
	NEED_PTR("cuMemGetInfo_v2", free);
	NEED_PTR("cuMemGetInfo_v2", total);
	int mig = mig_mask >> vis[cur->dev] & 1;
	*total = mig ? 17716740096ULL : 150109880320ULL;
	*free = mig ? 17179869184ULL : free_bytes;
	return OK;
}

CUresult cuEventCreate(unsigned long long *e, unsigned int flags) {
	NEED_CTX("cuEventCreate");
	NEED_PTR("cuEventCreate", e);
	if (flags & 0x2) return fail("cuEventCreate", "CU_EVENT_DISABLE_TIMING on a timing event", INVALID_VALUE);
	struct obj *o = newobj(EVENT, 0);
	if (!o) return OUT_OF_MEMORY;
	*e = (uintptr_t)o;
	return OK;
}
CUresult cuEventRecord(unsigned long long e, unsigned long long s) {
	NEED_CTX("cuEventRecord");
	NEED_STREAM("cuEventRecord", s);
	struct obj *o = getobj(e, EVENT);
	if (!o) return fail("cuEventRecord", "not an event of this context", INVALID_HANDLE);
	clock_gettime(CLOCK_MONOTONIC, &evtime[o - objs]);
	pthread_mutex_lock(&mu);
	evv[o - objs] = vt[cur->dev];
	pthread_mutex_unlock(&mu);
	if (async_mode) { /* when the stream reaches it */
		double t = now_ns();
		pthread_mutex_lock(&mu);
		eva[o - objs] = t > busy_until[cur->dev] ? t : busy_until[cur->dev];
		pthread_mutex_unlock(&mu);
		fake_cuda_host_cost();
	}
	o->n = 1; /* recorded */
	return OK;
}
CUresult cuEventSynchronize(unsigned long long e) {
	NEED_CTX("cuEventSynchronize");
	struct obj *o = getobj(e, EVENT);
	if (!o) return fail("cuEventSynchronize", "not an event of this context", INVALID_HANDLE);
	if (hang_ms > 0) usleep(hang_ms * 1000);
	if (async_mode && o->n) wait_until(eva[o - objs]);
	return OK;
}
static CUresult elapsed(const char *fn, float *ms, unsigned long long a, unsigned long long b) {
	NEED_CTX(fn);
	NEED_PTR(fn, ms);
	struct obj *x = getobj(a, EVENT), *y = getobj(b, EVENT);
	if (!x || !y) return fail(fn, "not events of this context", INVALID_HANDLE);
	if (!x->n || !y->n) return fail(fn, "event not recorded", INVALID_HANDLE);
	struct timespec s = evtime[x - objs], t = evtime[y - objs];
	*ms = (float)((t.tv_sec - s.tv_sec) * 1e3 + (t.tv_nsec - s.tv_nsec) / 1e6);
	if (vclock) *ms = (float)((evv[y - objs] - evv[x - objs]) / 1e6);
	if (async_mode) {
		if (now_ns() < eva[y - objs] || now_ns() < eva[x - objs]) return 600; /* CUDA_ERROR_NOT_READY */
		*ms = (float)((eva[y - objs] - eva[x - objs]) / 1e6);
	}
	return OK;
}
#ifndef NO_ELAPSED_V2
CUresult cuEventElapsedTime_v2(float *ms, unsigned long long a, unsigned long long b) { return elapsed("cuEventElapsedTime_v2", ms, a, b); }
#endif
CUresult cuEventElapsedTime(float *ms, unsigned long long a, unsigned long long b) { return elapsed("cuEventElapsedTime", ms, a, b); }
CUresult cuEventDestroy_v2(unsigned long long e) { return destroy("cuEventDestroy_v2", e, EVENT); }

/* Peer access: any two different GPUs may (as on an NVLink board). */
CUresult cuDeviceCanAccessPeer(int *can, int h, int hpeer) {
	NEED_DEV("cuDeviceCanAccessPeer", h, d);
	NEED_DEV("cuDeviceCanAccessPeer", hpeer, peer);
	NEED_PTR("cuDeviceCanAccessPeer", can);
	*can = d != peer;
	return OK;
}
CUresult cuCtxEnablePeerAccess(struct ctx *peer, unsigned int flags) {
	NEED_CTX("cuCtxEnablePeerAccess");
	if (flags != 0) return fail("cuCtxEnablePeerAccess", "flags must be 0", INVALID_VALUE);
	if (peer < ctxs || peer >= ctxs + MAXDEV || peer->refs <= 0 || peer == cur)
		return fail("cuCtxEnablePeerAccess", "not another retained context", INVALID_CONTEXT);
	if (peer_on[cur->dev][peer->dev]) return 704; /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED */
	peer_on[cur->dev][peer->dev] = 1;
	return OK;
}
int fake_cuda_peer_on(int d, int peer) { return peer_on[d][peer]; }
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, struct ctx *dctx, CUdeviceptr src, struct ctx *sctx, size_t n, unsigned long long s) {
	const char *fn = "cuMemcpyPeerAsync";
	NEED_CTX(fn);
	NEED_STREAM(fn, s);
	if (dctx < ctxs || dctx >= ctxs + MAXDEV || sctx < ctxs || sctx >= ctxs + MAXDEV)
		return fail(fn, "not contexts", INVALID_CONTEXT);
	if (!range_in(dst, n, DEVMEM, dctx) || !range_in(src, n, DEVMEM, sctx))
		return fail(fn, "range outside an allocation of its context", INVALID_VALUE);
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	fake_cuda_spend(peer_on[dctx->dev][sctx->dev] ? 2000 + n / 256.0 : 10000 + n / 32.0);
	return OK;
}

/* For the fake NVML: whether physical GPU gpu has a retained context. */
int fake_cuda_ctx_live(int gpu) {
	for (int d = 0; d < ngpus; d++)
		if (vis[d] == gpu && ctxs[d].refs > 0) return 1;
	return 0;
}

/* For the fake NCCL: ranges and streams of a given device's context. */
int fake_cuda_ngpus(void) { return ngpus; }
int fake_cuda_range_dev(unsigned long long p, size_t n, int dev) { return dev >= 0 && dev < MAXDEV && range_in(p, n, DEVMEM, &ctxs[dev]); }
int fake_cuda_stream_dev(unsigned long long s, int dev) {
	struct obj *o = (struct obj *)(uintptr_t)s;
	return o >= objs && o < objs + MAXOBJ && o->alive && o->kind == STREAM && o->ctx == &ctxs[dev];
}

#ifndef NO_ERROR_NAMES
/* cuGetErrorName and cuGetErrorString: the driver's own names and messages;
 * an unknown code is CUDA_ERROR_INVALID_VALUE with *str NULL, as cuda.h says. */
static const struct { int code; const char *name, *msg; } errs[] = {
	{0, "CUDA_SUCCESS", "no error"},
	{1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
	{2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
	{3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
	{34, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
	{46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
	{100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
	{101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
	{201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
	{214, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
	{400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
	{600, "CUDA_ERROR_NOT_READY", "device not ready"},
	{704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
	{802, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
	{803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
	{999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};
static CUresult errlookup(const char *fn, int code, const char **str, int msg) {
	NEED_PTR(fn, str);
	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
		if (errs[i].code == code) {
			*str = msg ? errs[i].msg : errs[i].name;
			return OK;
		}
	*str = NULL;
	return INVALID_VALUE;
}
CUresult cuGetErrorName(CUresult code, const char **str) { return errlookup("cuGetErrorName", code, str, 0); }
CUresult cuGetErrorString(CUresult code, const char **str) { return errlookup("cuGetErrorString", code, str, 1); }
#endif
