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
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifndef CUDA_MAJOR
#define CUDA_MAJOR 13
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

ncclResult_t ncclGetVersion(int *v) { if (!v) return fail("ncclGetVersion", "NULL", INVALID_ARGUMENT); *v = 22703; return SUCCESS; }

ncclResult_t ncclCommInitAll(struct comm **out, int ndev, const int *devlist) {
	const char *fn = "ncclCommInitAll";
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
