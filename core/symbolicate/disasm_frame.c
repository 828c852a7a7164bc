/* disasm_frame.c: kp_disasm_frame (kp_symbols.h), the bridge from a
 * report's frame to the disassembler: the frame is symbolicated to find
 * its image's UUID, dSYM and unslid address, and core/disasm is handed a
 * finder over the symbol sources for the binary that holds the bytes. */
#include "kp_symbols.h"
#include "kp_lex.h"

#include <string.h>

static const char *find_nth(void *ctx, const char *uuid, size_t k)
{
	return kp_symbols_find_nth(ctx, uuid, k);
}

kp_status kp_disasm_frame(kp_symbols *s, const kp_report *r, const kp_thread *t, size_t i,
                          size_t count, kp_disasm *out, kp_error *err)
{
	memset(out, 0, sizeof *out);
	if (!kp_disasm_available())
		return kp_error_set(err, KP_ERR_USAGE, 0, -1, "%s", kp_disasm_missing());
	kp_symresult res;
	kp_sym_status ss = kp_symbols_frame(s, r, t, i, &res);
	char uuid[37];
	if (ss == KP_SYM_NO_IMAGE || ss == KP_SYM_NO_UUID || ss == KP_SYM_NO_DSYM || !res.path ||
	    !res.uuid || !kp_uuid_canon(res.uuid, strlen(res.uuid), uuid))
		return kp_error_set(err, KP_ERR_NOTFOUND, 0, -1, "%s", res.msg[0] ? res.msg : "no image");
	return kp_disasm_image(uuid, res.path, res.symbol_address, count, find_nth, s, out, err);
}
