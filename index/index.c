/* index.c: placeholder */
