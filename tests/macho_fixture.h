/* macho_fixture.h: what test_macho.c and test_macho_hostile.c share: the
 * paths of the fixture binaries (tests/fixtures/bin, built by
 * tests/fixtures/build.sh) and whether they are there, and the Mach-O
 * constants (<mach-o/loader.h>, <mach-o/fat.h>, <mach-o/nlist.h> names and
 * values) the synthetic file builders write. */
#ifndef MACHO_FIXTURE_H
#define MACHO_FIXTURE_H

#include <stdbool.h>
#include <sys/stat.h>

/* headers */
#define MH_MAGIC 0xfeedfaceu
#define MH_MAGIC_64 0xfeedfacfu
#define FAT_MAGIC 0xcafebabeu
#define FAT_MAGIC_64 0xcafebabfu
#define CPU_TYPE_X86 7u
#define CPU_TYPE_ARM64 0x0100000cu
#define CPU_SUBTYPE_I386_ALL 3u
#define CPU_SUBTYPE_ARM64E 2u
#define CPU_SUBTYPE_PTRAUTH_ABI 0x80000000u
#define MH_DYLIB 6u
#define MH_FILESET 0xcu
#define MH_HEADER_SIZE 28u
#define MH_HEADER_64_SIZE 32u
#define FAT_ALIGN_4K 12u   /* fat_arch.align: 2^12 */

/* load commands and their sizes */
#define LC_SEGMENT 0x1u
#define LC_SYMTAB 0x2u
#define LC_SEGMENT_64 0x19u
#define LC_UUID 0x1bu
#define LC_FILESET_ENTRY 0x80000035u
#define SEGMENT_CMD_SIZE 56u
#define SECTION_SIZE 68u
#define SEGMENT_64_CMD_SIZE 72u
#define SECTION_64_SIZE 80u
#define UUID_CMD_SIZE 24u
#define SYMTAB_CMD_SIZE 24u
#define FILESET_ENTRY_CMD_SIZE 32u   /* before the entry id string */

/* field offsets, for corrupting a built file */
#define MH_OFF_NCMDS 16u
#define MH_OFF_SIZEOFCMDS 20u
#define LC_OFF_CMDSIZE 4u
#define SEG64_OFF_FILESIZE 48u
#define SEG64_OFF_NSECTS 64u
#define SECT64_OFF_OFFSET 48u
#define SYMTAB_OFF_SYMOFF 8u
#define SYMTAB_OFF_NSYMS 12u
#define SYMTAB_OFF_STROFF 16u
#define SYMTAB_OFF_STRSIZE 20u
#define NLIST_64_SIZE 16u
#define FILESET_OFF_ENTRY_ID 24u

#define VM_PROT_READ_EXECUTE 5u
#define S_ATTR_PURE_SOME_INSTRUCTIONS 0x80000400u   /* a __text section's flags */

/* nlist n_type */
#define N_EXT 0x01u
#define N_SECT 0x0eu
#define N_FUN 0x24u   /* a stab */

#define BIN KP_FIXTURES "/bin/"
#define DW(name) name ".dSYM/Contents/Resources/DWARF/" name

static bool macho_fixtures_built(void) __attribute__((unused));
static bool macho_fixtures_built(void)
{
	struct stat st;
	return stat(BIN "fakekext.universal", &st) == 0;
}

#endif
