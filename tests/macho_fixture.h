/* macho_fixture.h: what test_macho.c and test_macho_hostile.c share: the
 * paths of the fixture binaries (tests/fixtures/bin, built by
 * tests/fixtures/build.sh) and whether they are there. */
#ifndef MACHO_FIXTURE_H
#define MACHO_FIXTURE_H

#include <stdbool.h>
#include <sys/stat.h>

#define BIN KP_FIXTURES "/bin/"
#define DW(name) name ".dSYM/Contents/Resources/DWARF/" name

static bool macho_fixtures_built(void) __attribute__((unused));
static bool macho_fixtures_built(void)
{
	struct stat st;
	return stat(BIN "fakekext.universal", &st) == 0;
}

#endif
