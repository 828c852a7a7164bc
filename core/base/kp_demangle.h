/* kp_demangle.h: C++ names as llvm-symbolizer and every macOS tool spell
 * them (demangle.c): LLVM's Itanium demangler, libc++abi's __cxa_demangle,
 * loaded at run time on first use (kpbrowse links no C++ runtime).  Used by
 * the DWARF reader, the symbol cache, the disassembler, the bridge and the
 * front ends alike, so it sits in core/base, below all of them.
 *
 * Ownership: kp_demangle's answer is the caller's to free; the other calls
 * keep nothing.  Thread-safe (the library is loaded once). */
#ifndef KP_DEMANGLE_H
#define KP_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Demangles an Itanium C++ name ("_Z...", a block's "___Z..._block_invoke",
 * either with the extra leading '_' of Mach-O symbols) with LLVM's demangler
 * (libc++abi's __cxa_demangle, loaded on first use); returns a malloc'd string
 * the caller frees, or NULL when name is not mangled or libc++abi is absent. */
char *kp_demangle(const char *name);

/* Whether name, as it stands (no Mach-O '_' dropped), is a name
 * llvm-symbolizer demangles: "_Z..." or a block's "___Z...". */
bool kp_demangle_itanium(const char *name);

/* Whether kp_demangle can demangle (loads libc++abi once); when not, *why
 * (if why) is one line saying why. */
bool kp_demangle_available(const char **why);

/* Whether some Itanium name has stayed mangled in this process for want of
 * libc++abi, and then why (one line, for a front end to print once). */
bool kp_demangle_missed(const char **why);

/* A label that may hold a mangled name, as reports write them
 * ("kernel!__ZNK25IOGeneralMemoryDescriptor19dmaCommandOperationEjPvj",
 * "__ZN7wch_usb16merWriteCompleteEPvS0_ij + 0x1c"): the same with the name
 * demangled, the "IMAGE!" before it and the " + 0x.." or "+0x.." after it
 * kept, into buf; label itself when nothing in it is mangled (or NULL). */
const char *kp_demangle_label(const char *label, char *buf, size_t size);

#endif
