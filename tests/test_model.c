/* test_model.c: the model's helpers: UUIDs, numbers, arena, free. */
#include "kt.h"
#include "../core/report_build.h"

int main(void)
{
	char u[37];
	KT_CHECK(kp_uuid_canon("7c461edeb045324bb329721bed992270", 32, u), "uuid without dashes");
	KT_STREQ(u, "7C461EDE-B045-324B-B329-721BED992270", "canonical uuid");
	KT_CHECK(kp_uuid_canon("7C461EDE-B045-324B-B329-721BED992270", 36, u), "uuid with dashes");
	KT_CHECK(!kp_uuid_canon("xxxx", 4, u), "bad uuid rejected");
	KT_CHECK(!kp_uuid_canon("7c461edeb045324bb329721bed99227", 31, u), "short uuid rejected");
	KT_CHECK(!kp_uuid_canon("7c461edeb045324bb329721bed9922700", 33, u), "long uuid rejected");
	uint64_t v = 0;
	KT_CHECK(kp_parse_u64("18446744005165581456", 20, &v), "decimal > 2^63");
	KT_U64EQ(v, 18446744005165581456ull, "decimal value");
	KT_CHECK(kp_parse_u64("18446744073709551615", 20, &v) && v == UINT64_MAX, "2^64-1");
	KT_CHECK(!kp_parse_u64("18446744073709551616", 20, &v), "2^64 overflows");
	KT_CHECK(kp_parse_u64("0xfffffe00441b5ee4", 18, &v) && v == 0xfffffe00441b5ee4ull, "hex");
	KT_CHECK(!kp_parse_u64("0x", 2, &v), "bare 0x rejected");
	kp_report *r = kp__report_new("x");
	KT_CHECK(r != NULL, "report allocated");
	int ok = 1;
	for (int i = 0; i < 100000; i++)
		ok &= kp__sprintf(r, "%d", i) != NULL;
	KT_CHECK(ok, "arena holds 100000 strings");
	kp_process *p = kp__add_process(r);
	kp_thread *t = kp__add_thread(r, p);
	for (int i = 0; i < 1000; i++)
		kp__add_frame(r, t)->offset = (uint64_t)i;
	KT_CHECK(t->nframes == 1000 && t->frames[999].offset == 999 && t->frames[0].image == -1,
	         "frames grow");
	kp_report_free(&r);
	KT_CHECK(r == NULL, "free clears pointer");
	return kt_done();
}
