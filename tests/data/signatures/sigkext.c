/* sigkext.c: a kext for tests/test_signatures.sh: drv_io's only caller is
 * drv_start; drv_log is what every string is handed to. */
volatile const char *drv_last;
volatile int drv_state;

__attribute__((noinline)) void drv_log(const char *msg, int v)
{
	drv_last = msg;
	drv_state += v;
}

__attribute__((noinline)) int drv_io(int n)
{
	if (n > drv_state)
		drv_log("SigDriver: io timeout on channel %d", n);
	return n * 5;
}

__attribute__((noinline)) int drv_start(int n)
{
	if (n < 0)
		drv_log("SigDriver: start failed: %d", n);
	return drv_io(n + 1) + drv_state;   /* not a tail call: a bl / call */
}

__attribute__((noinline)) void drv_stop(int n)
{
	drv_log("SigDriver: stopping %d", n);
	drv_log("SigDriver: stopped", 0);
}
