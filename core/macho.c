/* macho.c: placeholder */
