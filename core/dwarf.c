/* dwarf.c: placeholder */
