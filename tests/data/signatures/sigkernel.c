/* sigkernel.c: a kernel for tests/test_signatures.sh, its functions known by
 * the strings they log: vm_fault_check <- vm_fault_enter <- trap_entry <-
 * kernel_bootstrap (each the only caller of the one before), two strings of
 * ipc_port_release (one shared with ipc_port_copy), one string shared by
 * decoy_one and decoy_two (a tie), lock_grab with two callers. */
volatile const char *kp_last;
volatile int kp_state;

__attribute__((noinline)) void kp_log(const char *msg)
{
	kp_last = msg;
	kp_state++;
}

__attribute__((noinline)) int vm_fault_check(int x)
{
	if (x > kp_state)
		kp_log("vm_fault: bad address in map");
	return x + 1;
}

__attribute__((noinline)) int vm_fault_enter(int x)
{
	return vm_fault_check(x * 3) + kp_state;
}

__attribute__((noinline)) int trap_entry(int x)
{
	return vm_fault_enter(x + 7) * 2;
}

__attribute__((noinline)) void ipc_port_release(int refs)
{
	if (refs < 0)
		kp_log("ipc_port_release: refcount underflow");
	if (refs == 0)
		kp_log("ipc: port is dead");
	kp_state = refs;
}

__attribute__((noinline)) void lock_grab(int n)
{
	if (n > 1000)
		kp_log("lck: spin timeout");
	kp_state += 3;
}

__attribute__((noinline)) void ipc_port_copy(int refs)
{
	lock_grab(refs);
	if (refs > 100)
		kp_log("ipc: port is dead");
	kp_state += refs;
}

__attribute__((noinline)) void sched_tick(int n)
{
	if (n > 64)
		kp_log("sched_tick: runq overflow");
	kp_state -= n;
}

__attribute__((noinline)) void decoy_one(int n)
{
	lock_grab(n);
	if (n)
		kp_log("shared warning");
	kp_state ^= n;
}

__attribute__((noinline)) void decoy_two(int n)
{
	if (n > 1)
		kp_log("shared warning");
	kp_state |= n;
}

int kernel_bootstrap(int x)
{
	ipc_port_release(x);
	ipc_port_copy(x);
	sched_tick(x);
	decoy_one(x);
	decoy_two(x);
	return trap_entry(x) + trap_entry(x + 1);
}
