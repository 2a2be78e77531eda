/* SSP reader, documents referenced by components (federate/config/ssp_impl.h): another SSD
 * ("sub.ssd", "sub.ssd#id"), another SSP package inside the archive or beside it ("sub.ssp",
 * its variant "sub.ssp#Variant.ssd"), a system of this document ("#id"), and the folders
 * that sourceBase="component" resolves against (an FMU's unpacked root). Every archive is
 * unpacked with the FMU unpacker's checks into the run's one temporary folder. The mapping is
 * doc/ssp.md ("Systems in other files"). Read federate/config/ssp_params.c next.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/tree.h>

#include "federate/config/ssp.h"
#include "federate/config/ssp_impl.h"
#include "federate/fmu/fmu_zip.h"

/* The name of a path in messages: a file under an unpacked archive is ARCHIVE/ENTRY (nested
 * ones OUTER/ENTRY/ENTRY), any other as given. */
void ssp_shown(const sx *s, const char *file, char *out, size_t n)
{
    for (size_t i = 0; i < s->n_unp; i++) { /* unpacked below the archive's folder */
        size_t l = strlen(s->unp[i].dir);
        if (!strncmp(file, s->unp[i].dir, l) && file[l] == '/') {
            snprintf(out, n, "%s%s", s->unp[i].shown, file + l);
            return;
        }
    }
    size_t dl = s->archive ? strlen(s->dir0) : 0;
    if (s->archive && !strncmp(file, s->dir0, dl) && file[dl] == '/')
        snprintf(out, n, "%s%s", s->archive_path, file + dl);
    else
        snprintf(out, n, "%s", file);
}

/* Unpack the archive at `path` (an .ssp package or an FMU) once per run into a folder under
 * the run's temporary folder (s->tmp, made by the first archive unpacked); *dir receives that
 * folder, owned by s. Refused naming `at` when the archive cannot be unpacked. */
int ssp_unpack(sx *s, xmlNodePtr at, const char *path, const char **dir)
{
    for (size_t i = 0; i < s->n_unp; i++)
        if (!strcmp(s->unp[i].src, path)) return *dir = s->unp[i].dir, 0;
    if (s->n_unp == sizeof s->unp / sizeof s->unp[0])
        return ssp_refuse(s, ssp_file(s), at, "more than %zu archives referenced in one system",
                          s->n_unp);
    char tmp[PATH_MAX], e[512], shown[PATH_MAX + 64];
    ssp_shown(s, path, shown, sizeof shown);
    int rc = fmu_zip_extract(path, NULL, tmp, sizeof tmp, e, sizeof e);
    size_t pl = strlen(path);
    if (rc) /* e begins with the path unpacked: named as the message names files */
        return ssp_refuse(s, ssp_file(s), at, "%s%s", shown, strncmp(e, path, pl) ? e : e + pl),
               rc == -2 ? -2 : -1;
    if (!s->tmp) { /* an unpacked .ssd: the run's folder, named as the unpacker names its own
                      (fmu_zip_sweep removes it after a crash) */
        const char *t = getenv("TMPDIR");
        char mk[PATH_MAX];
        snprintf(mk, sizeof mk, "%s/tempo-fmu-%ld-XXXXXX", t && t[0] ? t : "/tmp", (long)getpid());
        if (!mkdtemp(mk)) {
            int en = errno;
            fmu_zip_remove_tree(tmp, e, sizeof e);
            return ssp_refuse(s, ssp_file(s), at, "%s: mkdtemp: %s", mk, strerror(en)), -2;
        }
        if (!(s->tmp = strdup(mk))) {
            fmu_zip_remove_tree(mk, e, sizeof e);
            fmu_zip_remove_tree(tmp, e, sizeof e);
            return ssp_oom(s);
        }
    }
    char *final = NULL;
    {
        size_t n = strlen(s->tmp) + 32;
        final = malloc(n);
        if (final) snprintf(final, n, "%s/ssp-unpacked-%zu", s->tmp, s->n_unp);
        /* one tree to remove at the end; the folder's registration for removal on signals
         * is dropped by removing its old name (gone already) */
        if (final && rename(tmp, final) != 0) {
            int err = errno;
            fmu_zip_remove_tree(tmp, e, sizeof e);
            free(final);
            return ssp_refuse(s, ssp_file(s), at, "%s: moving its unpacked folder: %s", shown,
                              strerror(err)),
                   -2;
        }
        if (final) fmu_zip_remove_tree(tmp, e, sizeof e);
    }
    if (!final) {
        free(final);
        fmu_zip_remove_tree(tmp, e, sizeof e);
        return ssp_oom(s);
    }
    s->unp[s->n_unp] = (struct ssp_unpacked){strdup(path), final, strdup(shown)};
    if (!s->unp[s->n_unp].src || !s->unp[s->n_unp].shown) {
        free(s->unp[s->n_unp].src), free(s->unp[s->n_unp].shown), free(final);
        return ssp_oom(s);
    }
    *dir = s->unp[s->n_unp++].dir;
    return 0;
}

void ssp_unpacked_free(sx *s)
{
    for (size_t i = 0; i < s->n_unp; i++)
        free(s->unp[i].src), free(s->unp[i].dir), free(s->unp[i].shown);
    s->n_unp = 0;
}

/* A path names an SSP package: it ends in ".ssp" (case-insensitive). */
static int is_package(const char *p, size_t n)
{
    return n > 4 && !strncasecmp(p + n - 4, ".ssp", 4);
}

/* The first ssd:System below (or at) n whose id is `id`, depth-first in document order. */
static xmlNodePtr system_by_id(xmlNodePtr top, const char *id)
{
    for (xmlNodePtr n = top; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE) continue;
        char *v = ssp_is_el(n, SSP_NS_SSD, "System") ? ssp_attr(n, "id") : NULL;
        int hit = v && !strcmp(v, id);
        free(v);
        if (hit) return n;
        xmlNodePtr f = system_by_id(n->children, id);
        if (f) return f;
    }
    return NULL;
}

/* The ssd:System a component of type application/x-ssp-definition or application/x-ssp-package
 * references (doc/ssp.md): "#id" a system of this document; "sub.ssd" the root system of
 * another SSD, "sub.ssd#id" its system with that id; "sub.ssp" the SystemStructure.ssd of that
 * package, "sub.ssp#Variant.ssd" its variant. The referenced document's ssd:Units are read.
 * *dir receives the folder its sources resolve against (malloc'd), or NULL for "#id". */
xmlNodePtr ssp_nested_system(sx *s, xmlNodePtr c, const char *src, int *package, char **dir)
{
    *dir = NULL;
    const char *hash = strchr(src, '#');
    if (src[0] == '#') {
        xmlNodePtr found = system_by_id(xmlDocGetRootElement(c->doc), src + 1);
        if (!found) ssp_refuse(s, ssp_file(s), c, "no ssd:System with id \"%s\"", src + 1);
        return found;
    }
    size_t fl = hash ? (size_t)(hash - src) : strlen(src);
    char *file = strndup(src, fl);
    if (!file) return ssp_oom(s), NULL;
    *package = *package || is_package(file, fl);
    const char *frag = hash && hash[1] ? hash + 1 : NULL;
    char *p = ssp_source(s, c, file);
    free(file);
    if (!p) return NULL;
    char *ssd = p;
    struct stat sb;
    if (stat(p, &sb) != 0) {
        int en = errno;
        free(p);
        ssp_refuse(s, ssp_file(s), c, "source \"%s\": %s", src, strerror(en));
        return NULL;
    }
    if (*package) {
        const char *folder;
        const char *entry = frag ? frag : "SystemStructure.ssd";
        if (strstr(entry, "..") || entry[0] == '/' || !ssp_is_ssp_path(entry)) {
            free(p);
            ssp_refuse(s, ssp_file(s), c,
                       "source \"%s\": a package's variant is the name of an .ssd file in it", src);
            return NULL;
        }
        int rc = ssp_unpack(s, c, p, &folder);
        free(p);
        if (rc) return NULL;
        size_t n = strlen(folder) + strlen(entry) + 2;
        if (!(ssd = malloc(n))) return ssp_oom(s), NULL;
        snprintf(ssd, n, "%s/%s", folder, entry);
        if (stat(ssd, &sb) != 0) {
            free(ssd);
            ssp_refuse(s, ssp_file(s), c, "source \"%s\": the package has no %s", src, entry);
            return NULL;
        }
        frag = NULL; /* consumed: it named the variant */
    }
    xmlDocPtr d = ssp_read_xml(s, ssd);
    *dir = d ? ssp_abs_dir(ssd) : NULL;
    free(ssd);
    if (!d) return NULL;
    if (!*dir) return ssp_oom(s), NULL;
    xmlNodePtr root = xmlDocGetRootElement(d), sys = NULL;
    if (!root || !ssp_is_el(root, SSP_NS_SSD, "SystemStructureDescription")) {
        ssp_refuse(s, ssp_file(s), root, "the root is not ssd:SystemStructureDescription");
        return NULL;
    }
    for (xmlNodePtr e = root->children; e; e = e->next) {
        if (ssp_is_el(e, SSP_NS_SSD, "System") && !sys) sys = e;
        if (ssp_is_el(e, SSP_NS_SSD, "Units") && ssp_read_units(s, (const char *)d->URL, e))
            return NULL;
    }
    if (frag) {
        if (!(sys = system_by_id(root, frag)))
            ssp_refuse(s, ssp_file(s), c, "source \"%s\": no ssd:System with id \"%s\" in %s", src,
                       frag, (const char *)d->URL);
    } else if (!sys)
        ssp_refuse(s, ssp_file(s), root, "no ssd:System");
    return sys;
}

/* The folder a binding with sourceBase="component" resolves its sources against: the
 * referenced SSD's folder for a component that is a system, the unpacked FMU for an FMU
 * component (SSP 1.0: relative to the component's source). */
int ssp_component_base(sx *s, xmlNodePtr at, const bnd *b, const char **dir)
{
    if (b->comp_dir) return *dir = b->comp_dir, 0;
    if (!b->comp_fmu)
        return ssp_refuse(s, ssp_file(s), at,
                          "sourceBase=\"component\" on a binding of a system (only components "
                          "have a source)");
    return ssp_unpack(s, at, b->comp_fmu, dir);
}
