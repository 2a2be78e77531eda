/* What the engine's tests see of its insides (doc/contributing.md §15): the tests link the
 * engine as a library (librti_tm, mk/35-tm.mk) and include this header instead of tm.c.
 * Read rti/tm/tm_impl.h for the text builder it exposes. */
#ifndef TEMPO_RTI_TM_TM_TEST_H
#define TEMPO_RTI_TM_TM_TEST_H

#include <stddef.h>

#include "rti/tm/tm_impl.h"

/** Replace the engine's allocator (fault injection: tests/unit/tm_fault_test.c). NULL
 *  restores calloc / realloc. The engine frees with free() either way, so the replacements
 *  must return memory from malloc's heap. Not thread-safe; affects every tm_state. */
void tm_test_set_alloc(void *(*calloc_fn)(size_t n, size_t size),
                       void *(*realloc_fn)(void *p, size_t size));

#endif
