/* A fake vendor library for internal/gpu/dl's tests: a plain symbol, a _v2
 * alternate that the build can leave out (-DNO_V2), and a marker saying
 * which build this is. */
int fake_plain(int x) { return x + 1; }
#ifndef NO_V2
int fake_plain_v2(int x) { return x * 2; }
#endif
int fake_marker(void) { return MARKER; }

/* cuBLAS's version query: 13.1.0, and -1 (an error) for a property type
 * that is not MAJOR_VERSION 0, MINOR_VERSION 1 or PATCH_LEVEL 2. */
int cublasGetProperty(int type, int *value) {
	static const int v[3] = {13, 1, 0};
	if (type < 0 || type > 2 || value == 0)
		return 7; /* CUBLAS_STATUS_INVALID_VALUE */
	*value = v[type];
	return 0;
}
