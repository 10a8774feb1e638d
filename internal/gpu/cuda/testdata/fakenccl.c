/*
 * A fake libnccl.so.2 for internal/gpu/cuda's tests, loaded after the fake
 * libcuda.so.1, whose helpers check buffers and streams per device. It
 * checks every argument of ncclCommInitAll, ncclAllReduce (inside a group
 * when one thread drives several communicators, as NCCL requires), and
 * performs a float32 sum across the ranks at ncclGroupEnd, so a test can
 * read the result back. Version 2.27.3. On the fake libcuda's virtual clock
 * an all-reduce of n bytes over r ranks advances every rank's GPU by
 * 5000 + 2(r−1)/r · n / 128 ns: 5 µs, then a bus bandwidth of 128 GB/s.
 * In the fake libcuda's async mode ncclGroupEnd launches one rank after
 * another, each launch costing the host libcuda's call_ns, and the
 * all-reduce starts on every GPU once the last rank is launched and every
 * GPU is free (fake_cuda_collective), as NCCL's kernels wait for their peers.
 *
 * Built for CUDA 13 (-DCUDA_MAJOR=12 for a CUDA 12 build): like the real
 * one, whose CUDA runtime is linked in, ncclCommInitAll on a driver that does
 * not support that release fails with ncclUnhandledCudaError, and
 * ncclGetLastError says why.
 *
 * The debug log. Like NCCL's ncclDebugInit (src/debug.cc), the fake reads
 * NCCL_DEBUG, NCCL_DEBUG_SUBSYS and NCCL_DEBUG_FILE with the C library's
 * getenv once per loaded copy (at its first ncclCommInitAll, where NCCL's
 * first log line sets its log up), opens NCCL_DEBUG_FILE ("%h" the host name
 * up to its first dot, "%p" the process id, "%%" a percent sign) with "w"
 * when the level is above VERSION, else writes to standard output. With
 * NCCL_DEBUG=INFO (or TRACE) and TUNING among the subsystems (the default
 * is INIT,ENV; "^" inverts the list; ALL is every one), rank 0 writes one
 * line per all-reduce, "host:pid:tid [dev] NCCL INFO " then the message in
 * the format of NCCL_VERSION_CODE (-DNCCL_VERSION_CODE=22005 builds a 2.20.5;
 * the default is 2.27.3), as NCCL's src/enqueue.cc prints it:
 *   below 2.20: nothing (the line is commented out in 2.18 and 2.19)
 *   2.20-2.22:  "%ld Bytes -> Algo %d proto %d time %f"
 *   2.23:       "%s: %ld Bytes -> Algo %d proto %d time %f"
 *   2.24 on:    "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}"
 * It chooses NVLS (4) with SIMPLE (2) from fake_nccl_set("nvls_from", n)
 * bytes on (64 KiB unless set), RING (1) with LL (0) below; "symmetric" 1
 * writes 2.27's symmetric-kernel line instead ("AllReduce [Symmetric]: %ld
 * Bytes -> Kernel %s nchannels %d nthreads %d"), which names no algorithm;
 * "quiet" 1 writes no line at all, as NCCL 2.20 and 2.21 when a tuner plugin
 * chose.
 * A test that needs the log set up afresh builds a copy of its own (any
 * other -D flag makes one).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifndef CUDA_MAJOR
#define CUDA_MAJOR 13
#endif
#ifndef NCCL_VERSION_CODE
#define NCCL_VERSION_CODE 22703
#endif
long fake_cuda_get(const char *key);

typedef int ncclResult_t;
enum { SUCCESS = 0, INTERNAL = 3, INVALID_ARGUMENT = 4, INVALID_USAGE = 5 };

int fake_cuda_ngpus(void);
int fake_cuda_range_dev(unsigned long long p, size_t n, int dev);
int fake_cuda_stream_dev(unsigned long long s, int dev);
void fake_cuda_advance(int dev, double ns);
int fake_cuda_async(void);
void fake_cuda_host_cost(void);
double fake_cuda_now(void);
void fake_cuda_collective(const int *devs, const double *launch, int n, double ns);
ncclResult_t ncclGroupEnd(void);

struct comm { int alive, rank, dev, n; };
static struct comm comms[8];
struct op { struct comm *c; const float *send; float *recv; size_t count; int dtype; };
static struct op pending[8];
static int npending, depth, bad;
static char lastbad[256], lasterr[256];
const char *ncclGetLastError(struct comm *c) { (void)c; return lasterr; }

static ncclResult_t fail(const char *fn, const char *why, ncclResult_t rc) {
	bad++;
	snprintf(lastbad, sizeof lastbad, "%s: %s", fn, why);
	return rc;
}
int fake_nccl_bad(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", lastbad); return bad; }
int fake_nccl_live(void) { int n = 0; for (int i = 0; i < 8; i++) n += comms[i].alive; return n; }

ncclResult_t ncclGetVersion(int *v) { if (!v) return fail("ncclGetVersion", "NULL", INVALID_ARGUMENT); *v = NCCL_VERSION_CODE; return SUCCESS; }

/* The debug log (see the top). Levels as NCCL's ncclDebugLogLevel. */
enum { LOG_NONE = 0, LOG_VERSION = 1, LOG_WARN = 2, LOG_INFO = 3, LOG_ABORT = 4, LOG_TRACE = 5 };
enum { SUB_INIT = 1, SUB_TUNING = 64, SUB_ENV = 128 };
static int dbg_ready, dbg_level;
static unsigned long dbg_mask;
static FILE *dbg_out;
static char dbg_seen[1024]; /* what the fake read at its set-up, for the tests */
static long nvls_from = 64 << 10, symmetric, quiet;

/* What a test can read or set: the variable name's value as the C library's
 * getenv sees it (NULL when unset), and the log's set-up as the fake read it
 * ("NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING NCCL_DEBUG_FILE=..."; "" before
 * the first ncclCommInitAll). */
const char *fake_nccl_getenv(const char *name) { return getenv(name); }
int fake_nccl_debug(char *buf, int n) { if (buf && n > 0) snprintf(buf, n, "%s", dbg_seen); return dbg_ready; }
int fake_nccl_set(const char *key, long v) {
	if (!strcmp(key, "nvls_from")) nvls_from = v;
	else if (!strcmp(key, "symmetric")) symmetric = v;
	else if (!strcmp(key, "quiet")) quiet = v;
	else if (!strcmp(key, "reset")) nvls_from = 64 << 10, symmetric = 0, quiet = 0;
	else return -1;
	return 0;
}

static void host_name(char *h, size_t n) {
	if (gethostname(h, n) != 0) snprintf(h, n, "unknown");
	h[n - 1] = 0;
	char *dot = strchr(h, '.');
	if (dot) *dot = 0;
}

static void debug_init(void) {
	if (dbg_ready) return;
	dbg_ready = 1;
	const char *lvl = getenv("NCCL_DEBUG"), *sub = getenv("NCCL_DEBUG_SUBSYS"), *file = getenv("NCCL_DEBUG_FILE");
	snprintf(dbg_seen, sizeof dbg_seen, "NCCL_DEBUG=%s NCCL_DEBUG_SUBSYS=%s NCCL_DEBUG_FILE=%s", lvl ? lvl : "(unset)",
		sub ? sub : "(unset)", file ? file : "(unset)");
	dbg_level = LOG_NONE;
	if (lvl) {
		static const char *names[] = {"", "VERSION", "WARN", "INFO", "ABORT", "TRACE"};
		for (int i = 1; i <= LOG_TRACE; i++)
			if (!strcasecmp(lvl, names[i])) dbg_level = i;
	}
	dbg_mask = SUB_INIT | SUB_ENV;
	if (sub) {
		int invert = sub[0] == '^';
		char list[256];
		snprintf(list, sizeof list, "%s", sub + invert);
		dbg_mask = invert ? ~0UL : 0;
		for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			unsigned long m = !strcasecmp(tok, "INIT") ? SUB_INIT : !strcasecmp(tok, "TUNING") ? SUB_TUNING
				: !strcasecmp(tok, "ENV") ? SUB_ENV : !strcasecmp(tok, "ALL") ? ~0UL : 0;
			dbg_mask = invert ? dbg_mask & ~m : dbg_mask | m;
		}
	}
	dbg_out = stdout;
	if (dbg_level > LOG_VERSION && file && *file) {
		char path[4096], host[256];
		size_t k = 0;
		host_name(host, sizeof host);
		for (const char *c = file; *c && k < sizeof path - 32; c++) {
			if (*c != '%') { path[k++] = *c; continue; }
			c++;
			if (*c == 'h') k += snprintf(path + k, sizeof path - k, "%s", host);
			else if (*c == 'p') k += snprintf(path + k, sizeof path - k, "%d", (int)getpid());
			else if (*c == '%') path[k++] = '%';
			else { path[k++] = '%'; if (!*c) break; path[k++] = *c; }
			if (k >= sizeof path) k = sizeof path - 1;
		}
		path[k] = 0;
		FILE *f = fopen(path, "w");
		if (f) { setvbuf(f, NULL, _IOLBF, 0); dbg_out = f; }
	}
}

/* info writes one INFO line of subsystem sub from device dev, as NCCL's
 * ncclDebugLog formats it. */
static void info(unsigned long sub, int dev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void info(unsigned long sub, int dev, const char *fmt, ...) {
	if (dbg_level < LOG_INFO || !(dbg_mask & sub)) return;
	char host[256], line[1024];
	host_name(host, sizeof host);
	int n = snprintf(line, sizeof line, "%s:%d:%d [%d] NCCL INFO ", host, (int)getpid(), (int)syscall(SYS_gettid), dev);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - n, fmt, ap);
	va_end(ap);
	fprintf(dbg_out, "%s\n", line);
}

/* tuning logs rank 0's choice for an all-reduce of bytes. */
static void tuning(int dev, long bytes) {
	static const char *algos[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
	static const char *protos[] = {"LL", "LL128", "SIMPLE"};
	int algo = bytes >= nvls_from ? 4 : 1, proto = bytes >= nvls_from ? 2 : 0;
	if (quiet) return;
	if (symmetric) {
		info(SUB_TUNING, dev, "%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d", "AllReduce", bytes, "AllReduce_AGxLL_R", 16, 512);
		return;
	}
	if (NCCL_VERSION_CODE < 22000) return;
	if (NCCL_VERSION_CODE < 22300)
		info(SUB_TUNING, dev, "%ld Bytes -> Algo %d proto %d time %f", bytes, algo, proto, 5.0 + bytes / 128e3);
	else if (NCCL_VERSION_CODE < 22400)
		info(SUB_TUNING, dev, "%s: %ld Bytes -> Algo %d proto %d time %f", "AllReduce", bytes, algo, proto, 5.0 + bytes / 128e3);
	else
		info(SUB_TUNING, dev, "%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}", "AllReduce", bytes, algos[algo], protos[proto], 0, 15);
}

ncclResult_t ncclCommInitAll(struct comm **out, int ndev, const int *devlist) {
	const char *fn = "ncclCommInitAll";
	debug_init();
	info(SUB_INIT, devlist ? devlist[0] : 0, "fake NCCL version %d.%d.%d", NCCL_VERSION_CODE / 10000, NCCL_VERSION_CODE / 100 % 100, NCCL_VERSION_CODE % 100);
	if (!out || !devlist) return fail(fn, "NULL comms or devlist", INVALID_ARGUMENT);
	if (ndev < 1 || ndev > fake_cuda_ngpus()) return fail(fn, "ndev out of range", INVALID_ARGUMENT);
	if (fake_cuda_get("driver") < CUDA_MAJOR * 1000) {
		snprintf(lasterr, sizeof lasterr, "Cuda failure 35 'CUDA driver version is insufficient for CUDA runtime version'");
		return 1; /* ncclUnhandledCudaError */
	}
	for (int i = 0; i < ndev; i++) {
		if (devlist[i] < 0 || devlist[i] >= fake_cuda_ngpus()) return fail(fn, "bad device in devlist", INVALID_ARGUMENT);
		for (int j = 0; j < i; j++)
			if (devlist[j] == devlist[i]) return fail(fn, "device repeated", INVALID_ARGUMENT);
	}
	int k = 0;
	for (int i = 0; i < 8 && k < ndev; i++)
		if (!comms[i].alive) {
			comms[i] = (struct comm){1, k, devlist[k], ndev};
			out[k++] = &comms[i];
		}
	return k == ndev ? SUCCESS : INTERNAL;
}
ncclResult_t ncclCommDestroy(struct comm *c) {
	if (c < comms || c >= comms + 8 || !c->alive) return fail("ncclCommDestroy", "not a live communicator", INVALID_ARGUMENT);
	c->alive = 0;
	return SUCCESS;
}
ncclResult_t ncclGroupStart(void) { depth++; return SUCCESS; }
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, int dtype, int op, struct comm *c, unsigned long long stream) {
	const char *fn = "ncclAllReduce";
	static const size_t sizes[10] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
	if (c < comms || c >= comms + 8 || !c->alive) return fail(fn, "not a live communicator", INVALID_ARGUMENT);
	if (c->n > 1 && depth == 0) return fail(fn, "several communicators from one thread outside a group", INVALID_USAGE);
	if (count == 0) return fail(fn, "count 0", INVALID_ARGUMENT);
	if (dtype < 0 || dtype > 9) return fail(fn, "unknown data type", INVALID_ARGUMENT);
	if (op < 0 || op > 4) return fail(fn, "unknown reduction", INVALID_ARGUMENT);
	size_t n = count * sizes[dtype];
	if (!fake_cuda_range_dev((uintptr_t)send, n, c->dev) || !fake_cuda_range_dev((uintptr_t)recv, n, c->dev))
		return fail(fn, "buffer not on the communicator's GPU", INVALID_ARGUMENT);
	if (!fake_cuda_stream_dev(stream, c->dev)) return fail(fn, "stream not of the communicator's GPU", INVALID_ARGUMENT);
	if (npending == 8) return fail(fn, "too many pending", INTERNAL);
	pending[npending++] = (struct op){c, send, recv, count, dtype};
	if (depth == 0) return ncclGroupStart(), ncclGroupEnd(); /* lone rank: run now */
	return SUCCESS;
}
ncclResult_t ncclGroupEnd(void) {
	if (depth <= 0) return fail("ncclGroupEnd", "without ncclGroupStart", INVALID_USAGE);
	if (--depth > 0) return SUCCESS;
	int n = npending;
	npending = 0;
	if (n == 0) return SUCCESS;
	if (n != pending[0].c->n) return fail("ncclGroupEnd", "not every rank joined the all-reduce", INVALID_USAGE);
	for (int i = 1; i < n; i++)
		if (pending[i].count != pending[0].count || pending[i].dtype != pending[0].dtype)
			return fail("ncclGroupEnd", "ranks disagree on count or type", INVALID_USAGE);
	static const size_t sizes[10] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
	double bytes = (double)pending[0].count * sizes[pending[0].dtype];
	double ns = 5000 + 2.0 * (n - 1) / n * bytes / 128;
	for (int i = 0; i < n; i++)
		if (pending[i].c->rank == 0) tuning(pending[i].c->dev, (long)bytes);
	if (fake_cuda_async()) {
		int devs[8];
		double launch[8];
		for (int i = 0; i < n; i++) {
			fake_cuda_host_cost();
			devs[i] = pending[i].c->dev;
			launch[i] = fake_cuda_now();
		}
		fake_cuda_collective(devs, launch, n, ns);
	} else
		for (int i = 0; i < n; i++) fake_cuda_advance(pending[i].c->dev, ns);
	if (pending[0].dtype != 7) return SUCCESS; /* only float32 is summed by the fake */
	for (size_t j = 0; j < pending[0].count; j++) {
		float s = 0;
		for (int i = 0; i < n; i++) s += pending[i].send[j];
		for (int i = 0; i < n; i++) pending[i].recv[j] = s;
	}
	return SUCCESS;
}
