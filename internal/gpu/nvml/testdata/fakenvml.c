/*
 * A fake libnvidia-ml.so.1 for internal/gpu/nvml's tests. It exports the
 * symbols gpuscout binds with nvml.h's signatures, answers with the values
 * the recorded H200 gave (../../../../shared/data/gpu/h200-2026-11-30:
 * NVIDIA H200, driver 580.159.04, CUDA 13.0, 143771 MiB, PASSTHROUGH, ...)
 * and checks every argument: a bad one is answered the way NVML would
 * (INVALID_ARGUMENT, INSUFFICIENT_SIZE, UNINITIALIZED) and counted, so a
 * test can assert that gpuscout never passed one.
 *
 * Builds:  -DOLD_DRIVER  only the older names (ClocksThrottleReasons,
 *                        nvmlSystemGetCudaDriverVersion, processes _v2)
 *          -DNO_MEMINFO  without nvmlDeviceGetMemoryInfo (a required symbol)
 * fake_nvml_set(key, value) configures: "gpus" (1..4; a second GPU is
 * synthetic: bus 00000000:00:07.0), "nvlink" (active links; 0 = NOT_SUPPORTED
 * as on the one-GPU H200), "procs" (compute processes), "lost" (every device
 * call answers GPU_IS_LOST), "reasons" (clock-event mask), "xid" (queue an
 * Xid error with that code on GPU 0's event set), "reset".
 * fake_nvml_gpu(gpu, key, value) sets one GPU: "procs", "reasons",
 * "compute_mode" (nvmlComputeMode_t: 3 EXCLUSIVE_PROCESS, 2 PROHIBITED),
 * "remap_corr", "remap_unc", "remap_pending", "remap_failure" (remapped
 * rows; NOT_SUPPORTED under MIG, as nvml.h says), "mig" (MIG on: the GPU
 * has one MIG device, MIG-b3a15e0d-9c4f-5e1a-8f2c-00000000000<gpu>, the
 * UUID fakecuda.c gives the instance). A MIG device handle answers what NVML
 * answers for one (UUID, memory, processes, its parent); anything else asked
 * of it is counted as a bad call: telemetry is read from the parent GPU.
 * Process i of GPU g has PID 4242 + 100·g + i, named "python3".
 * "ctx_pid" (global): a GPU on which the fake libcuda, when loaded, has a
 * context lists one more process with that PID, the way NVML in a
 * container lists the container's own process under its host PID.
 * When the fake libcuda is loaded in its real-time ("async") mode, the
 * telemetry follows the load it models, over the last 100 ms as NVML's
 * sample period: utilisation is the GPU's busy fraction, power 80 W +
 * 620 W × utilisation (700 W, the limit, when it runs throttled, with
 * sw_power_cap among the clock-event reasons), temperature 38 °C + 40 °C ×
 * utilisation, the SM clock 1980 MHz over the throttle's slowdown when busy
 * (345 idle). "call_us" (global) makes each telemetry call cost the host
 * that long, as NVML's do. The compute capability is the fake libcuda's
 * ("cc", 9.0 unless set) when that is loaded, else the H200's 9.0.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int nvmlReturn_t;
enum {
	SUCCESS = 0, UNINITIALIZED = 1, INVALID_ARGUMENT = 2, NOT_SUPPORTED = 3,
	INSUFFICIENT_SIZE = 7, GPU_IS_LOST = 15
};

typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t is 68 bytes");

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
_Static_assert(sizeof(nvmlProcessInfo_t) == 24, "nvmlProcessInfo_t is 24 bytes");

struct dev { int index; };
static struct dev devs[4] = {{0}, {1}, {2}, {3}};
static struct dev migs[4] = {{0}, {1}, {2}, {3}}; /* each GPU's one MIG device */
typedef struct dev *nvmlDevice_t;
#define ISMIG(d) ((d) >= migs && (d) < migs + 4)

static int inited, ngpus = 1, nvlinks, lost, ctx_pid;
int fake_cuda_ctx_live(int gpu) __attribute__((weak)); /* from the fake libcuda, when loaded */
int fake_cuda_telemetry(int gpu, double window_ns, double *util, double *slow) __attribute__((weak));
long fake_cuda_get(const char *key) __attribute__((weak)); /* "cc": the compute capability the fake libcuda gives */
static long call_us;
/* live reads the modelled load of GPU g; 0 when there is none. */
static int live(int g, double *util, double *slow) {
	if (call_us > 0) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		do clock_gettime(CLOCK_MONOTONIC, &b);
		while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < call_us);
	}
	return fake_cuda_telemetry && fake_cuda_telemetry(g, 1e8, util, slow);
}
static int nprocs[4], cmode[4], remap[4][4], mig[4];
static unsigned long long xids[16];
static int nxids, xidsets, xidregistered;
static unsigned long long reasons[4] = {1, 1, 1, 1}; /* GpuIdle, as recorded */
static int bad;
static char lastbad[256];

static nvmlReturn_t fail(const char *fn, const char *why, nvmlReturn_t rc) {
	bad++;
	snprintf(lastbad, sizeof lastbad, "%s: %s", fn, why);
	return rc;
}

int fake_nvml_gpu(int g, const char *key, long long v) {
	if (g < 0 || g >= 4) return -1;
	if (!strcmp(key, "procs")) nprocs[g] = (int)v;
	else if (!strcmp(key, "reasons")) reasons[g] = (unsigned long long)v;
	else if (!strcmp(key, "compute_mode")) cmode[g] = (int)v;
	else if (!strcmp(key, "remap_corr")) remap[g][0] = (int)v;
	else if (!strcmp(key, "remap_unc")) remap[g][1] = (int)v;
	else if (!strcmp(key, "remap_pending")) remap[g][2] = (int)v;
	else if (!strcmp(key, "remap_failure")) remap[g][3] = (int)v;
	else if (!strcmp(key, "mig")) mig[g] = (int)v;
	else return -1;
	return 0;
}

int fake_nvml_set(const char *key, long long v) {
	if (!strcmp(key, "gpus")) ngpus = (int)v;
	else if (!strcmp(key, "nvlink")) nvlinks = (int)v;
	else if (!strcmp(key, "lost")) lost = (int)v;
	else if (!strcmp(key, "ctx_pid")) ctx_pid = (int)v;
	else if (!strcmp(key, "call_us")) call_us = (long)v;
	else if (!strcmp(key, "procs") || !strcmp(key, "reasons")) { for (int g = 0; g < 4; g++) fake_nvml_gpu(g, key, v); }
	else if (!strcmp(key, "xid")) { if (nxids < 16) xids[nxids++] = (unsigned long long)v; }
	else if (!strcmp(key, "reset")) {
		ngpus = 1; nvlinks = lost = bad = nxids = xidregistered = ctx_pid = 0; lastbad[0] = 0; call_us = 0;
		memset(nprocs, 0, sizeof nprocs); memset(cmode, 0, sizeof cmode); memset(remap, 0, sizeof remap); memset(mig, 0, sizeof mig);
		for (int g = 0; g < 4; g++) reasons[g] = 1;
	}
	else return -1;
	return 0;
}

/* fake_nvml_bad returns how many bad calls there were and the last one. */
int fake_nvml_bad(char *buf, int n) {
	if (buf && n > 0) snprintf(buf, n, "%s", lastbad);
	return bad;
}

int fake_nvml_inited(void) { return inited; }

#define CHECK_INIT(fn) do { if (!inited) return fail(fn, "NVML not initialised", UNINITIALIZED); } while (0)
#define CHECK_DEV(fn, d) do { CHECK_INIT(fn); \
	if (ISMIG(d)) return fail(fn, "a MIG device handle where the GPU's is wanted", INVALID_ARGUMENT); \
	if ((d) < devs || (d) >= devs + ngpus) return fail(fn, "bad device handle", INVALID_ARGUMENT); \
	if (lost) return GPU_IS_LOST; } while (0)
/* CHECK_ANY accepts a GPU or a live MIG device handle. */
#define CHECK_ANY(fn, d) do { CHECK_INIT(fn); \
	if (ISMIG(d) && (d) - migs < ngpus && mig[(d) - migs]) { if (lost) return GPU_IS_LOST; break; } \
	CHECK_DEV(fn, d); } while (0)
#define CHECK_PTR(fn, p) do { if (!(p)) return fail(fn, "NULL pointer: " #p, INVALID_ARGUMENT); } while (0)

nvmlReturn_t nvmlInit_v2(void) { inited++; return SUCCESS; }
nvmlReturn_t nvmlShutdown(void) {
	if (!inited) return fail("nvmlShutdown", "not initialised", UNINITIALIZED);
	inited--;
	return SUCCESS;
}

static nvmlReturn_t str(const char *fn, char *buf, unsigned int len, unsigned int need, const char *v) {
	CHECK_PTR(fn, buf);
	if (len < need) return fail(fn, "buffer shorter than NVML's documented size", INSUFFICIENT_SIZE);
	snprintf(buf, len, "%s", v);
	return SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int len) {
	CHECK_INIT("nvmlSystemGetDriverVersion");
	return str("nvmlSystemGetDriverVersion", v, len, 80, "580.159.04");
}
nvmlReturn_t nvmlSystemGetNVMLVersion(char *v, unsigned int len) {
	CHECK_INIT("nvmlSystemGetNVMLVersion");
	return str("nvmlSystemGetNVMLVersion", v, len, 80, "13.580.159.04");
}
static nvmlReturn_t cudaver(const char *fn, int *v) {
	CHECK_INIT(fn);
	CHECK_PTR(fn, v);
	*v = 13000;
	return SUCCESS;
}
#ifndef OLD_DRIVER
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return cudaver("nvmlSystemGetCudaDriverVersion_v2", v); }
#endif
nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) { return cudaver("nvmlSystemGetCudaDriverVersion", v); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) {
	CHECK_INIT("nvmlDeviceGetCount_v2");
	CHECK_PTR("nvmlDeviceGetCount_v2", n);
	*n = ngpus;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *h) {
	CHECK_INIT("nvmlDeviceGetHandleByIndex_v2");
	CHECK_PTR("nvmlDeviceGetHandleByIndex_v2", h);
	if (i >= (unsigned)ngpus) return INVALID_ARGUMENT; /* NVML's answer; not counted: callers may probe */
	*h = &devs[i];
	return SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *v, unsigned int len) {
	CHECK_ANY("nvmlDeviceGetName", d);
	return str("nvmlDeviceGetName", v, len, 64, ISMIG(d) ? "NVIDIA H200 MIG 1g.18gb" : "NVIDIA H200");
}
static void uuidof(nvmlDevice_t d, char *buf, size_t n) {
	if (ISMIG(d)) snprintf(buf, n, "MIG-b3a15e0d-9c4f-5e1a-8f2c-%012x", d->index);
	else if (d->index == 0) snprintf(buf, n, "GPU-8a89bb26-423b-7217-aa80-469f70fa0196");
	else snprintf(buf, n, "GPU-00000000-0000-0000-0000-%012x", d->index);
}
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *v, unsigned int len) {
	CHECK_ANY("nvmlDeviceGetUUID", d);
	char u[96];
	uuidof(d, u, sizeof u);
	return str("nvmlDeviceGetUUID", v, len, 80, u);
}
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *h) {
	CHECK_INIT("nvmlDeviceGetHandleByUUID");
	CHECK_PTR("nvmlDeviceGetHandleByUUID", uuid);
	CHECK_PTR("nvmlDeviceGetHandleByUUID", h);
	for (int g = 0; g < ngpus; g++) {
		char u[96];
		uuidof(&devs[g], u, sizeof u);
		if (!strcmp(u, uuid)) { *h = &devs[g]; return SUCCESS; }
		uuidof(&migs[g], u, sizeof u);
		if (mig[g] && !strcmp(u, uuid)) { *h = &migs[g]; return SUCCESS; }
	}
	return 6; /* NVML_ERROR_NOT_FOUND: not counted, callers may probe */
}
nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t d, unsigned int *is) {
	CHECK_ANY("nvmlDeviceIsMigDeviceHandle", d);
	CHECK_PTR("nvmlDeviceIsMigDeviceHandle", is);
	*is = ISMIG(d);
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t m, nvmlDevice_t *d) {
	CHECK_INIT("nvmlDeviceGetDeviceHandleFromMigDeviceHandle");
	CHECK_PTR("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", d);
	if (!ISMIG(m) || !mig[m - migs]) return fail("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "not a MIG device handle", INVALID_ARGUMENT);
	*d = &devs[m - migs];
	return SUCCESS;
}
#ifndef NO_MEMINFO
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
	CHECK_ANY("nvmlDeviceGetMemoryInfo", d);
	CHECK_PTR("nvmlDeviceGetMemoryInfo", m);
	if (ISMIG(d)) {
		m->total = 17716740096ULL;
		m->used = 0;
		m->free = m->total;
		return SUCCESS;
	}
	m->total = 150754820096ULL; /* 143771 MiB */
	m->used = 644939776ULL;
	m->free = 150109880320ULL;
	return SUCCESS;
}
#endif
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) {
	CHECK_DEV("nvmlDeviceGetPciInfo_v3", d);
	CHECK_PTR("nvmlDeviceGetPciInfo_v3", p);
	memset(p, 0, sizeof *p);
	snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "0000:00:%02x.0", 6 + d->index);
	snprintf(p->busId, sizeof p->busId, "00000000:00:%02x.0", 6 + d->index);
	p->domain = 0;
	p->bus = 0;
	p->device = 6 + d->index;
	p->pciDeviceId = 0x233510de;
	p->pciSubSystemId = 0x18bf10de;
	return SUCCESS;
}
static nvmlReturn_t uint_out(const char *fn, nvmlDevice_t d, unsigned int *v, unsigned int val) {
	CHECK_DEV(fn, d);
	CHECK_PTR(fn, v);
	*v = val;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return uint_out("nvmlDeviceGetCurrPcieLinkGeneration", d, v, 5); }
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return uint_out("nvmlDeviceGetCurrPcieLinkWidth", d, v, 16); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return uint_out("nvmlDeviceGetMaxPcieLinkGeneration", d, v, 5); }
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return uint_out("nvmlDeviceGetMaxPcieLinkWidth", d, v, 16); }

/* Clocks as recorded idle: graphics/SM 345 MHz, memory 3201; max 1980/3201. */
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, unsigned int type, unsigned int *v) {
	static const unsigned int now[] = {345, 345, 3201, 0};
	if (type > 3) return fail("nvmlDeviceGetClockInfo", "clock type out of range", INVALID_ARGUMENT);
	if (type == 3) { CHECK_DEV("nvmlDeviceGetClockInfo", d); return NOT_SUPPORTED; } /* not recorded */
	double u, slow;
	if (type <= 1 && !ISMIG(d) && d >= devs && d < devs + 4 && live(d->index, &u, &slow))
		return uint_out("nvmlDeviceGetClockInfo", d, v, u > 0 ? (unsigned)(1980 / slow + 0.5) : 345);
	return uint_out("nvmlDeviceGetClockInfo", d, v, now[type]);
}
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, unsigned int type, unsigned int *v) {
	static const unsigned int max[] = {1980, 1980, 3201, 0};
	if (type > 3) return fail("nvmlDeviceGetMaxClockInfo", "clock type out of range", INVALID_ARGUMENT);
	if (type == 3) { CHECK_DEV("nvmlDeviceGetMaxClockInfo", d); return NOT_SUPPORTED; }
	return uint_out("nvmlDeviceGetMaxClockInfo", d, v, max[type]);
}
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
	double u, slow;
	if (!ISMIG(d) && d >= devs && d < devs + 4 && live(d->index, &u, &slow))
		return uint_out("nvmlDeviceGetPowerUsage", d, mw, slow > 1 ? 700000 : (unsigned)(80000 + 620000 * u));
	return uint_out("nvmlDeviceGetPowerUsage", d, mw, 80056);
}
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw) { return uint_out("nvmlDeviceGetEnforcedPowerLimit", d, mw, 700000); }
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj) {
	CHECK_DEV("nvmlDeviceGetTotalEnergyConsumption", d);
	CHECK_PTR("nvmlDeviceGetTotalEnergyConsumption", mj);
	*mj = 2718713ULL;
	return SUCCESS;
}
/* The recorded H200: ECC on, no errors (volatile counters); PCIe 2358 KB/s
 * sent and 603 KB/s received at the probe (gpuprobe.jsonl). */
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, unsigned int type, unsigned int counter, unsigned long long *n) {
	CHECK_DEV("nvmlDeviceGetTotalEccErrors", d);
	CHECK_PTR("nvmlDeviceGetTotalEccErrors", n);
	if (type > 1 || counter > 1) return fail("nvmlDeviceGetTotalEccErrors", "error or counter type out of range", INVALID_ARGUMENT);
	*n = 0;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t d, unsigned int counter, unsigned int *v) {
	if (counter > 1) return fail("nvmlDeviceGetPcieThroughput", "counter out of range", INVALID_ARGUMENT);
	return uint_out("nvmlDeviceGetPcieThroughput", d, v, counter == 0 ? 2358 : 603);
}
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
	CHECK_DEV("nvmlDeviceGetUtilizationRates", d);
	CHECK_PTR("nvmlDeviceGetUtilizationRates", u);
	double busy, slow;
	u->gpu = live(d->index, &busy, &slow) ? (unsigned)(100 * busy + 0.5) : 0;
	u->memory = u->gpu / 2;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, unsigned int sensor, unsigned int *t) {
	if (sensor != 0) return fail("nvmlDeviceGetTemperature", "sensor is not NVML_TEMPERATURE_GPU", INVALID_ARGUMENT);
	double u, slow;
	if (!ISMIG(d) && d >= devs && d < devs + 4 && live(d->index, &u, &slow))
		return uint_out("nvmlDeviceGetTemperature", d, t, (unsigned)(38 + 40 * u + 0.5));
	return uint_out("nvmlDeviceGetTemperature", d, t, 38);
}
static nvmlReturn_t reasons_out(const char *fn, nvmlDevice_t d, unsigned long long *r) {
	CHECK_DEV(fn, d);
	CHECK_PTR(fn, r);
	*r = reasons[d->index];
	double u, slow;
	if (live(d->index, &u, &slow)) *r = slow > 1 ? 0x4 : u > 0 ? 0 : 0x1;
	return SUCCESS;
}
#ifndef OLD_DRIVER
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r) {
	return reasons_out("nvmlDeviceGetCurrentClocksEventReasons", d, r);
}
#endif
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r) {
	/* An older driver: a distinct mask tells the tests which name was bound. */
	nvmlReturn_t rc = reasons_out("nvmlDeviceGetCurrentClocksThrottleReasons", d, r);
	if (rc == SUCCESS) *r |= 0x100;
	return rc;
}
static nvmlReturn_t mode_out(const char *fn, nvmlDevice_t d, unsigned int *cur, unsigned int *pend, unsigned int v) {
	CHECK_DEV(fn, d);
	CHECK_PTR(fn, cur);
	CHECK_PTR(fn, pend);
	*cur = *pend = v;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend) { return mode_out("nvmlDeviceGetEccMode", d, cur, pend, 1); }
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend) {
	CHECK_DEV("nvmlDeviceGetMigMode", d);
	return mode_out("nvmlDeviceGetMigMode", d, cur, pend, (unsigned)mig[d->index]);
}
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t d, int *mode) {
	CHECK_DEV("nvmlDeviceGetComputeMode", d);
	CHECK_PTR("nvmlDeviceGetComputeMode", mode);
	*mode = cmode[d->index];
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc, unsigned int *pending, unsigned int *failure) {
	const char *fn = "nvmlDeviceGetRemappedRows";
	CHECK_DEV(fn, d);
	CHECK_PTR(fn, corr);
	CHECK_PTR(fn, unc);
	CHECK_PTR(fn, pending);
	CHECK_PTR(fn, failure);
	if (mig[d->index]) return NOT_SUPPORTED;
	*corr = remap[d->index][0];
	*unc = remap[d->index][1];
	*pending = remap[d->index][2];
	*failure = remap[d->index][3];
	return SUCCESS;
}
nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int len) {
	CHECK_INIT("nvmlSystemGetProcessName");
	CHECK_PTR("nvmlSystemGetProcessName", name);
	if (len == 0) return fail("nvmlSystemGetProcessName", "length 0", INVALID_ARGUMENT);
	for (int g = 0; g < 4; g++)
		if (pid >= 4242u + 100u * g && pid < 4242u + 100u * g + (unsigned)nprocs[g]) {
			snprintf(name, len, "python3");
			return SUCCESS;
		}
	return 6; /* NVML_ERROR_NOT_FOUND */
}
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t d, unsigned int *m) { return uint_out("nvmlDeviceGetVirtualizationMode", d, m, 1); }
nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t d, unsigned int *a) { return uint_out("nvmlDeviceGetArchitecture", d, a, 9); }
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d, unsigned int *n) {
	CHECK_DEV("nvmlDeviceGetNumaNodeId", d);
	CHECK_PTR("nvmlDeviceGetNumaNodeId", n);
	return NOT_SUPPORTED; /* not recorded on the H200 VM */
}
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor) {
	CHECK_DEV("nvmlDeviceGetCudaComputeCapability", d);
	CHECK_PTR("nvmlDeviceGetCudaComputeCapability", major);
	CHECK_PTR("nvmlDeviceGetCudaComputeCapability", minor);
	long cc = fake_cuda_get ? fake_cuda_get("cc") : 90; /* the fake libcuda's, when loaded */
	if (cc <= 0) cc = 90;
	*major = (int)(cc / 10);
	*minor = (int)(cc % 10);
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, unsigned int *active) {
	CHECK_DEV("nvmlDeviceGetNvLinkState", d);
	CHECK_PTR("nvmlDeviceGetNvLinkState", active);
	if (link >= 18) return fail("nvmlDeviceGetNvLinkState", "link >= NVML_NVLINK_MAX_LINKS", INVALID_ARGUMENT);
	if (nvlinks == 0) return NOT_SUPPORTED;
	*active = link < (unsigned)nvlinks;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, unsigned int idx, unsigned int *st) {
	CHECK_DEV("nvmlDeviceGetP2PStatus", a);
	CHECK_DEV("nvmlDeviceGetP2PStatus", b);
	CHECK_PTR("nvmlDeviceGetP2PStatus", st);
	if (a == b) return fail("nvmlDeviceGetP2PStatus", "a device with itself", INVALID_ARGUMENT);
	if (idx > 4) return fail("nvmlDeviceGetP2PStatus", "caps index out of range", INVALID_ARGUMENT);
	*st = (idx == 2 && nvlinks == 0) ? 5 /* NOT_SUPPORTED */ : 0;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, unsigned int *lvl) {
	CHECK_DEV("nvmlDeviceGetTopologyCommonAncestor", a);
	CHECK_DEV("nvmlDeviceGetTopologyCommonAncestor", b);
	CHECK_PTR("nvmlDeviceGetTopologyCommonAncestor", lvl);
	*lvl = 40; /* NVML_TOPOLOGY_NODE */
	return SUCCESS;
}
static nvmlReturn_t procs(const char *fn, nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos) {
	CHECK_ANY(fn, d);
	CHECK_PTR(fn, count);
	int g = d->index, n = nprocs[g];
	int self = ctx_pid && fake_cuda_ctx_live && fake_cuda_ctx_live(g);
	if (*count < (unsigned)(n + self)) {
		*count = n + self;
		return INSUFFICIENT_SIZE;
	}
	if (n + self > 0) CHECK_PTR(fn, infos);
	for (int i = 0; i < n; i++) {
		infos[i].pid = 4242 + 100 * g + i;
		infos[i].usedGpuMemory = i == 1 ? ~0ULL /* NVML_VALUE_NOT_AVAILABLE */ : 512ULL << 20;
		infos[i].gpuInstanceId = infos[i].computeInstanceId = mig[g] ? 0 : 0xFFFFFFFF;
	}
	if (self) {
		infos[n].pid = (unsigned)ctx_pid;
		infos[n].usedGpuMemory = 500ULL << 20;
		infos[n].gpuInstanceId = infos[n].computeInstanceId = mig[g] ? 0 : 0xFFFFFFFF;
	}
	*count = n + self;
	return SUCCESS;
}
#ifndef OLD_DRIVER
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *c, nvmlProcessInfo_t *p) {
	return procs("nvmlDeviceGetComputeRunningProcesses_v3", d, c, p);
}
#endif
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *c, nvmlProcessInfo_t *p) {
	return procs("nvmlDeviceGetComputeRunningProcesses_v2", d, c, p);
}

/* Events: one event set at a time; Xid errors queued with "xid" arrive on
 * GPU 0 once it is registered. */
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType, eventData;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
_Static_assert(sizeof(nvmlEventData_t) == 32, "nvmlEventData_t is 32 bytes");
typedef struct { int id; } *nvmlEventSet_t;
static struct { int id; } theset = {1};
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
	CHECK_INIT("nvmlEventSetCreate");
	CHECK_PTR("nvmlEventSetCreate", set);
	*set = (nvmlEventSet_t)&theset;
	xidsets++;
	return SUCCESS;
}
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
	if (set != (nvmlEventSet_t)&theset || xidsets <= 0) return fail("nvmlEventSetFree", "not a live event set", INVALID_ARGUMENT);
	xidsets--;
	return SUCCESS;
}
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
	CHECK_DEV("nvmlDeviceRegisterEvents", d);
	if (set != (nvmlEventSet_t)&theset) return fail("nvmlDeviceRegisterEvents", "not the event set", INVALID_ARGUMENT);
	if (types != 0x8) return fail("nvmlDeviceRegisterEvents", "want nvmlEventTypeXidCriticalError", INVALID_ARGUMENT);
	if (d->index == 0) xidregistered = 1;
	return SUCCESS;
}
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *e, unsigned int ms) {
	CHECK_INIT("nvmlEventSetWait_v2");
	CHECK_PTR("nvmlEventSetWait_v2", e);
	if (set != (nvmlEventSet_t)&theset) return fail("nvmlEventSetWait_v2", "not the event set", INVALID_ARGUMENT);
	if (ms != 0) return fail("nvmlEventSetWait_v2", "the agent must never wait", INVALID_ARGUMENT);
	if (!xidregistered || nxids == 0) return 10; /* NVML_ERROR_TIMEOUT */
	e->device = &devs[0];
	e->eventType = 0x8;
	e->eventData = xids[0];
	e->gpuInstanceId = e->computeInstanceId = 0xffffffff;
	memmove(xids, xids + 1, (size_t)(--nxids) * sizeof xids[0]);
	return SUCCESS;
}
