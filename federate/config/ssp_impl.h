/* Private to federate/config/ssp*.c: the reader's state shared by the structure walk (ssp.c)
 * and the parameter bindings (ssp_params.c). doc/ssp.md is the mapping.
 */
#ifndef TEMPO_FEDERATE_CONFIG_SSP_IMPL_H
#define TEMPO_FEDERATE_CONFIG_SSP_IMPL_H

#include <stddef.h>

#include <jansson.h>
#include <libxml/tree.h>

/* ssc:Annotation type of the settings Tempo adds to an SSP (doc/ssp.md). */
#define SSP_TEMPO_ANNOTATION "org.tempo-rti.federation"

enum { SSP_NS_SSD = 1, SSP_NS_SSC, SSP_NS_SSV, SSP_NS_SSM };

typedef struct sx sx;

const char *ssp_file(const sx *s);
char *ssp_source(sx *s, xmlNodePtr n, const char *uri);
int ssp_refuse_msg(sx *s, const char *file, xmlNodePtr n, const char *msg);
int ssp_oom(sx *s);
size_t ssp_n_bindings(const sx *s);
xmlNodePtr ssp_binding(const sx *s, size_t i, const char **owner, int *is_sys);
json_t *ssp_component_params(sx *s, const char *path);
const char *ssp_connector_unit(sx *s, const char *owner, const char *name);
int ssp_is_el(const xmlNode *n, int ns, const char *name);
char *ssp_attr(xmlNodePtr n, const char *name);
int ssp_get_double(sx *s, const char *file, xmlNodePtr n, const char *name, double dflt,
                   double *out);
int ssp_skipped(const xmlNode *n);
const char *ssp_component_for(sx *s, const char *sys, const char *name, const char **var);
int ssp_unit_conv(sx *s, const char *file, xmlNodePtr n, const char *a, const char *b, double *f,
                  double *o);
xmlDocPtr ssp_read_xml(sx *s, const char *file);
xmlNodePtr ssp_enumerations(sx *s);
int ssp_read_units(sx *s, const char *file, xmlNodePtr units);
const char *ssp_sys_connector_unit(sx *s, const char *sys, const char *target);
int ssp_system_value(sx *s, const char *file, xmlNodePtr at, const char *sys, const char *target,
                     json_t *val, int *found);

/* ssp_params.c: every ssd:ParameterBinding into the components' "parameters"; outer systems
 * first, so an inner binding overrides. Returns 0, -1 refused, -2 out of memory. */
int ssp_bind_parameters(sx *s);
/* ssp_params.c: the Tempo annotation's keys merged into the document. */
int ssp_apply_tempo(sx *s, json_t *doc, json_t *tempo);

#endif
