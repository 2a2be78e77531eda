/* FOM reader: parses our small XML schema (doc/fom.md) into classes, attributes,
 * interactions and parameters with handles identical on every side (doc/fom.md).
 * Uses only libxml2 and libc. Read doc/fom.md for the schema, then fom/fom.c. */
#ifndef TEMPO_FOM_FOM_H
#define TEMPO_FOM_FOM_H

#include <stddef.h>
#include <stdint.h>

/* A handle names one class, attribute, interaction or parameter of a parsed FOM. Each kind
 * has its own number space, 1 .. fom_*_count() in document order; 0 (FOM_NONE) means
 * "none / not found". Attribute and parameter handles are global to the FOM, not per class:
 * an attribute inherited by a subclass keeps the handle of its declaration in the parent. */
typedef uint32_t fom_handle;
#define FOM_NONE 0u

#define FOM_ERRLEN             512  /* a buffer this size holds any error message of this module */
#define FOM_DEFAULT_RESOLUTION 1e-9 /* seconds per tick when <time> is absent */
#define FOM_ARRAY_MAX          65536u /* largest fixed array length, "float64[N]" */

/* Status codes. */
enum fom_status {
    FOM_OK = 0,
    FOM_ESYNTAX = -1, /* not well-formed XML (message has file:line and libxml2's reason) */
    FOM_ESCHEMA = -2, /* well-formed but not a valid FOM: unknown element or attribute,
                         missing/duplicate name, unknown type, bad resolution, ... */
    FOM_EIO = -3,     /* the file could not be read */
    FOM_ENOMEM = -4,  /* out of memory */
    FOM_EUSAGE = -5   /* NULL arguments */
};

/* Data types of attribute and parameter values, and how a value is encoded on the wire
 * (all little-endian; doc/fom.md). */
enum fom_type {
    FOM_T_NONE = 0,         /* not a type (returned for a bad handle) */
    FOM_T_FLOAT64 = 1,      /* 8 bytes, IEEE 754 binary64 */
    FOM_T_INT64 = 2,        /* 8 bytes, two's complement */
    FOM_T_INT32 = 3,        /* 4 bytes, two's complement */
    FOM_T_BOOLEAN = 4,      /* 1 byte, 0 or 1 */
    FOM_T_STRING = 5,       /* UTF-8 bytes, no NUL, no terminator (length from the value) */
    FOM_T_BYTES = 6,        /* any bytes */
    FOM_T_FLOAT64_ARRAY = 7 /* n x 8 bytes; fixed n when fom_*_length() > 0, else any n */
};

struct fom; /* opaque; immutable after parsing, so it may be shared read-only by threads */

/* ---- parsing -------------------------------------------------------------------------- */

/** Parse a FOM file.
 *  libxml2 prints nothing (structured error handler), loads no DTD and fetches nothing
 *  (XML_PARSE_NONET); entities are not expanded.
 *  @param path    file to read (not NULL); also the name used in messages
 *  @param out     out: the FOM, owned by the caller (fom_free); NULL on error
 *  @param err     caller-owned buffer for "path:line: reason" (may be NULL if errlen == 0)
 *  @param errlen  size of err (FOM_ERRLEN is always enough)
 *  @return FOM_OK, FOM_EIO, FOM_ESYNTAX, FOM_ESCHEMA, FOM_ENOMEM or FOM_EUSAGE. */
int fom_parse_file(const char *path, struct fom **out, char *err, size_t errlen);

/** Read a FOM file into memory without parsing it (for a caller that needs the text too,
 *  e.g. libtempo, which sends it in its JOIN frame). Same reader and limits as
 *  fom_parse_file: plain files only, at most 16 MiB.
 *  @param path      file to read (not NULL); also the name used in messages
 *  @param text_out  out: the bytes, NUL-terminated, owned by the caller (free); NULL on error
 *  @param len       out: bytes read (without the terminator)
 *  @param err       caller-owned buffer for "path: reason"
 *  @param errlen    size of err
 *  @return FOM_OK, FOM_EIO (cannot open or read), FOM_ESCHEMA (over the size limit),
 *          FOM_ENOMEM or FOM_EUSAGE. */
int fom_read_file(const char *path, char **text_out, size_t *len, char *err, size_t errlen);

/** Parse FOM text held in memory (e.g. received in a JOIN frame).
 *  @param text    XML bytes (need not be NUL-terminated; not NULL unless len == 0)
 *  @param len     bytes of text
 *  @param name    name used in messages instead of a file name (NULL = "<memory>")
 *  @param out     out: the FOM, owned by the caller (fom_free); NULL on error
 *  @param err     caller-owned "name:line: reason"
 *  @param errlen  size of err
 *  @return FOM_OK, FOM_ESYNTAX, FOM_ESCHEMA, FOM_ENOMEM or FOM_EUSAGE. */
int fom_parse_mem(const char *text, size_t len, const char *name, struct fom **out, char *err,
                  size_t errlen);

/** Free a FOM. Accepts NULL. Does not call xmlCleanupParser (tests may). */
void fom_free(struct fom *f);

/* ---- federation-wide facts ------------------------------------------------------------ */

/** The FOM's name (root attribute name). @return a string owned by f. */
const char *fom_name(const struct fom *f);

/** Time resolution in seconds per tick (default FOM_DEFAULT_RESOLUTION). */
double fom_resolution(const struct fom *f);

/** Canonical fingerprint: a 64-bit FNV-1a hash of a canonical serialization (name, the
 *  resolution's binary64 bits, every class/attribute/interaction/parameter with its name,
 *  parent, type and length, in handle order). Formatting, comments and attribute order in
 *  the XML do not change it; any semantic difference (including handle order) does. */
uint64_t fom_fingerprint(const struct fom *f);

/** Number of object classes / attributes / interaction classes / parameters; the handles
 *  of each kind are 1 .. count. */
uint32_t fom_class_count(const struct fom *f);
uint32_t fom_attr_count(const struct fom *f);
uint32_t fom_inter_count(const struct fom *f);
uint32_t fom_param_count(const struct fom *f);

/* ---- object classes and attributes ---------------------------------------------------- */

/** Find an object class by simple name ("Car"; class names are unique in a FOM) or by
 *  qualified name from a root class ("Vehicle.Car"). Cost: one hash lookup.
 *  @return the class handle, or FOM_NONE when not found (or name is NULL). */
fom_handle fom_class_find(const struct fom *f, const char *name);

/** Simple name of a class. @return string owned by f, or NULL for a bad handle. */
const char *fom_class_name(const struct fom *f, fom_handle cls);

/** Qualified name "Root.Sub.Leaf". @return string owned by f, or NULL for a bad handle. */
const char *fom_class_qname(const struct fom *f, fom_handle cls);

/** Parent class. @return the parent, or FOM_NONE for a root class or a bad handle. */
fom_handle fom_class_parent(const struct fom *f, fom_handle cls);

/** Is @p a a subclass of @p b, or equal to it? Cost O(depth).
 *  @return 1 yes; 0 no or a bad handle. */
int fom_class_is_a(const struct fom *f, fom_handle a, fom_handle b);

/** Find an attribute of a class by name, including inherited ones. Cost: one hash lookup
 *  per level of the class's ancestry.
 *  @return attribute handle, or FOM_NONE (not found, bad class, NULL name). */
fom_handle fom_attr_find(const struct fom *f, fom_handle cls, const char *name);

/** List the attributes of a class including inherited ones, root class's first, each in
 *  document order. Cost O(depth + attributes); nothing is allocated.
 *  @param out  caller array (may be NULL when cap == 0)
 *  @param cap  entries available in out
 *  @return total number of attributes (may exceed cap: then only cap stored); 0 for a bad
 *          handle. */
uint32_t fom_class_attrs(const struct fom *f, fom_handle cls, fom_handle *out, uint32_t cap);

/** Does class @p cls have attribute @p attr (declared or inherited)? @return 1 or 0. */
int fom_class_has_attr(const struct fom *f, fom_handle cls, fom_handle attr);

/** Name / type / fixed array length (0 = scalar or variable length) / declaring class of an
 *  attribute. Bad handles give NULL / FOM_T_NONE / 0 / FOM_NONE. */
const char *fom_attr_name(const struct fom *f, fom_handle attr);
enum fom_type fom_attr_type(const struct fom *f, fom_handle attr);
uint32_t fom_attr_length(const struct fom *f, fom_handle attr);
fom_handle fom_attr_class(const struct fom *f, fom_handle attr);

/* ---- interaction classes and parameters ----------------------------------------------- */

/** Same as the class functions above, for interaction classes and their parameters.
 *  Interaction names are unique in a FOM (separately from object class names). */
fom_handle fom_inter_find(const struct fom *f, const char *name);
const char *fom_inter_name(const struct fom *f, fom_handle ic);
const char *fom_inter_qname(const struct fom *f, fom_handle ic);
fom_handle fom_inter_parent(const struct fom *f, fom_handle ic);
int fom_inter_is_a(const struct fom *f, fom_handle a, fom_handle b);
fom_handle fom_param_find(const struct fom *f, fom_handle ic, const char *name);
uint32_t fom_inter_params(const struct fom *f, fom_handle ic, fom_handle *out, uint32_t cap);
int fom_inter_has_param(const struct fom *f, fom_handle ic, fom_handle param);
const char *fom_param_name(const struct fom *f, fom_handle param);
enum fom_type fom_param_type(const struct fom *f, fom_handle param);
uint32_t fom_param_length(const struct fom *f, fom_handle param);
fom_handle fom_param_inter(const struct fom *f, fom_handle param);

/* ---- data types ----------------------------------------------------------------------- */

/** Schema name of a type ("float64", "float64[]"; fixed arrays print as "float64[]" here,
 *  the length is separate). @return static string; "none" for FOM_T_NONE or unknown. */
const char *fom_type_name(enum fom_type t);

/** Check the size (and, for boolean/string, the content) of an encoded value.
 *  @param t       the data type
 *  @param length  fixed array length (0 = variable / scalar)
 *  @param p       value bytes (may be NULL when n == 0)
 *  @param n       bytes
 *  @return 1 valid; 0 not (wrong size, boolean not 0/1, NUL inside a string). */
int fom_value_ok(enum fom_type t, uint32_t length, const void *p, size_t n);

#endif
