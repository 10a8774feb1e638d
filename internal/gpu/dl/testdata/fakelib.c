/* A fake vendor library for internal/gpu/dl's tests: a plain symbol, a _v2
 * alternate that the build can leave out (-DNO_V2), and a marker saying
 * which build this is. */
int fake_plain(int x) { return x + 1; }
#ifndef NO_V2
int fake_plain_v2(int x) { return x * 2; }
#endif
int fake_marker(void) { return MARKER; }
