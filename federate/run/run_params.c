/* tempo-run's check of the parameter values a federation file sets against each FMU's
 * modelDescription: subnormals and min/max (federate/run/run_check.h). Its own object, so that
 * what links run_check.c alone needs no FMU library. Serves doc/run.md ("What it does"). */
#include "federate/config/fedfile.h"
#include "federate/fmu/fmu_md.h"
#include "federate/run/run_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

int run_check_params(const struct fedfile *ff, size_t i, const fmu_md *md, char *err, size_t errlen)
{
    const fedfile_fed *fd = &ff->feds[i];
    for (size_t k = 0; k < fd->n_params; k++) {
        const fedfile_param *p = &fd->params[k];
        long v = fmu_md_find(md, p->name);
        if (v < 0) continue; /* fedfile_check_fmu names a missing variable */
        const fmu_var *var = &md->vars[v];
        if (var->type == FMU_T_BOOLEAN || var->type == FMU_T_STRING) continue;
        if (p->kind != FEDFILE_REAL && p->kind != FEDFILE_INTEGER) continue; /* a type fault */
        double x = p->kind == FEDFILE_INTEGER ? (double)p->integer : p->real;
        if (var->type == FMU_T_REAL && x != 0 && fabs(x) < DBL_MIN) {
            snprintf(err, errlen,
                     "%s: federates[%zu].parameters[\"%s\"]: %.17g is subnormal (nonzero and "
                     "smaller in magnitude than %.17g): give 0 or a normal number",
                     ff->path, i, p->name, x, DBL_MIN);
            return -1;
        }
        int below = var->has_min && x < var->min, above = var->has_max && x > var->max;
        if (below || above) {
            snprintf(err, errlen,
                     "%s: federates[%zu].parameters[\"%s\"]: %.17g is %s the variable's %s, "
                     "%.17g (modelDescription.xml:%d of %s)",
                     ff->path, i, p->name, x, below ? "below" : "above", below ? "min" : "max",
                     below ? var->min : var->max, var->line, fd->fmu);
            return -1;
        }
    }
    return 0;
}
