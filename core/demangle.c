/* demangle.c: placeholder */
